import { homedir } from 'node:os';
import { UsageError } from '@notegate/kit/cli';
import { loadLocatedConfig, locateConfig } from '../config/config-location.js';
import { loadEnvironment } from '../config/environment.js';
import type { RagConfig } from '../config/load-config.js';
import { notesFolderConfig } from '../config/notes-folder.js';
import { NotesEngine } from './notes-engine.js';

/** The vault options of a server over a notes engine (docs/protocol.md#notes-server-notegate-notes-server). */
export const NOTES_VAULT_OPTIONS = {
  'vaults-config': {
    type: 'string',
    valueName: 'FILE',
    defaultText:
      'the config notegate-rag finds (NOTEGATE_CONFIG, rag/vaults.json under the repository root, the per-user config)',
    description: 'A notegate-rag vaults config: its vaults, index, model and guardrails (allowed roots, diode policy).',
  },
  vault: {
    type: 'string',
    multiple: true,
    valueName: 'ID',
    defaultText: 'every vault of the config',
    description: 'A vault this server serves (repeatable); searches see only these.',
  },
  'write-vault': {
    type: 'string',
    valueName: 'ID',
    defaultText: 'the first --vault',
    description: 'The vault notes.write writes into; one of --vault.',
  },
  'notes-dir': {
    type: 'string',
    valueName: 'DIR',
    description:
      'Instead of a config: one folder of notes (created if missing) with a lexical-only index inside it, in DIR/.notegate/.',
  },
} as const;

export interface VaultFlags {
  readonly 'vaults-config': string | undefined;
  readonly vault: readonly string[];
  readonly 'write-vault': string | undefined;
  readonly 'notes-dir': string | undefined;
}

export interface VaultSelection {
  readonly config: RagConfig;
  readonly vaultIds: readonly string[];
  readonly writeVaultId: string;
  /** A notes folder: the server makes and keeps its own index. */
  readonly ownIndex: boolean;
}

/** Which vaults the flags select from a loaded config; an id the config does not declare is a usage error naming it. */
export function selectVaults(config: RagConfig, vaultFlags: readonly string[], writeVault: string | undefined) {
  const declared = config.vaults.map((vault) => vault.id);
  const unknown = [...vaultFlags, ...(writeVault === undefined ? [] : [writeVault])].filter(
    (id) => !declared.includes(id),
  );
  if (unknown.length > 0) {
    const flag = vaultFlags.includes(unknown[0] ?? '') ? '--vault' : '--write-vault';
    throw new UsageError(
      `${flag}: vault '${unknown[0]}' is not declared in ${config.configPath} (declared: ${declared.join(', ')})`,
    );
  }
  const vaultIds = vaultFlags.length > 0 ? [...new Set(vaultFlags)] : declared;
  const writeVaultId = writeVault ?? vaultIds[0] ?? '';
  if (!vaultIds.includes(writeVaultId)) {
    throw new UsageError(`--write-vault: '${writeVaultId}' is not one of the served vaults (${vaultIds.join(', ')})`);
  }
  return { vaultIds, writeVaultId };
}

/** Reads the vault flags into a selection: a config and some of its vaults, or one notes folder. */
export function readVaultFlags(flags: VaultFlags, cwd: string): VaultSelection {
  const home = homedir();
  const environment = processEnvironment(cwd);
  const dir = flags['notes-dir'];
  if (dir !== undefined) {
    const other = (['vaults-config', 'write-vault'] as const).find((name) => flags[name] !== undefined);
    if (other !== undefined || flags.vault.length > 0) {
      throw new UsageError(`--notes-dir: give either --notes-dir or --${other ?? 'vault'}, not both`);
    }
    const config = notesFolderConfig(dir, home, '--notes-dir');
    const id = config.vaults[0]?.id ?? '';
    return { config, vaultIds: [id], writeVaultId: id, ownIndex: true };
  }
  const config = loadLocatedConfig(locateConfig(flags['vaults-config'], cwd, environment), home);
  return { config, ...selectVaults(config, flags.vault, flags['write-vault']), ownIndex: false };
}

/** Opens the engine over the selection, with the model cache of the environment (docs/retrieval.md#model-cache). */
export function openNotesEngine(
  selection: VaultSelection,
  cwd: string,
  log: (line: string) => void,
): Promise<NotesEngine> {
  const environment = processEnvironment(cwd);
  return NotesEngine.open({
    config: selection.config,
    vaultIds: selection.vaultIds,
    writeVaultId: selection.writeVaultId,
    modelCacheDir: environment.modelCacheDir,
    modelHubUrl: environment.modelHubUrl,
    denseScan: environment.denseScan,
    createIndex: selection.ownIndex,
    log,
  });
}

/** The environment of this process (`.env` in `cwd` under it), as `notegate-rag` reads it. */
function processEnvironment(cwd: string) {
  return loadEnvironment({ cwd, env: process.env, platform: process.platform, homeDir: homedir() });
}
