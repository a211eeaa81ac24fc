import path from 'node:path';
import { isRecord } from '@notegate/kit';
import { UsageError } from '@notegate/kit/cli';
import { isInside } from './diode-policy.js';
import { type RagConfig, vaultFolderOf } from './load-config.js';
import { parseVaultsConfig, VAULT_ID_PATTERN } from './parse-config.js';

/**
 * Edits of a config file by `init`, `add` and `remove` (docs/retrieval.md#a-folder-in-one-command): pure
 * functions from the file's JSON to the new JSON, each refusing with a UsageError that names the item.
 * The caller checks the result as a config (`resolveRagConfig`) before it writes anything.
 */

/** docs/retrieval.md#config: ids are at most this long. */
const VAULT_ID_MAX_CHARACTERS = 64;
/** The id of a folder whose name keeps no letter or digit of a-z, 0-9 (a name in another script). */
const FALLBACK_VAULT_ID = 'notes';

/** A folder named on the command line, checked, with the id it gets. */
export interface NewVault {
  readonly id: string;
  /** As given, made absolute: what the config records. */
  readonly absolute: string;
  readonly realPath: string;
}

/**
 * The vault id a folder name gives: accents dropped, lower case, every run of other characters than
 * a-z, 0-9, `_` and `-` made one `-`, trimmed to a letter or digit at each end, at most 64 characters
 * (`My Notes` → `my-notes`, `Übung` → `ubung`); `notes` when nothing is left.
 */
export function vaultIdOf(folderName: string): string {
  const id = folderName
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^[-_]+/, '')
    .slice(0, VAULT_ID_MAX_CHARACTERS)
    .replace(/[-_]+$/, '');
  return id === '' ? FALLBACK_VAULT_ID : id;
}

/** What is wrong with a vault id given by hand, or undefined. */
export function vaultIdProblem(id: string): string | undefined {
  return VAULT_ID_PATTERN.test(id)
    ? undefined
    : `'${id}' is not a valid vault id (must match ${VAULT_ID_PATTERN.source})`;
}

/**
 * A folder given as a new vault (`dir` relative to `cwd`): it must exist, lie outside the personal cloud
 * drive (docs/retrieval.md#diode-policy), and not hold the home folder (a vault of the whole home would
 * index everything in it). Its id is `id`, else the one its name gives.
 */
export function newVaultFolder(dir: string, cwd: string, homeDirs: readonly string[], id?: string): NewVault {
  const absolute = path.resolve(cwd, dir);
  const folder = vaultFolderOf(absolute, homeDirs);
  if ('problem' in folder) throw new UsageError(`${dir}: ${folder.problem}`);
  if (homeDirs.some((home) => isInside(home, folder.realPath))) {
    throw new UsageError(`${dir}: ${absolute} holds your home folder; give the folder that holds your notes`);
  }
  return { id: id ?? vaultIdOf(path.basename(absolute)), absolute, realPath: folder.realPath };
}

/** Refuses two new vaults with one id or one folder (`init A B`), naming both. */
export function checkNewVaults(vaults: readonly NewVault[]): void {
  vaults.forEach((vault, i) => {
    const earlier = vaults.slice(0, i);
    const sameFolder = earlier.find((other) => other.realPath === vault.realPath);
    if (sameFolder) throw new UsageError(`${vault.absolute}: the same folder as ${sameFolder.absolute}`);
    const sameId = earlier.find((other) => other.id === vault.id);
    if (sameId) {
      throw new UsageError(
        `vault id '${vault.id}' would name both ${sameId.absolute} and ${vault.absolute}: ` +
          `init with one, then 'notegate-rag add ${vault.absolute} --id ID'`,
      );
    }
  });
}

/** The JSON of a new config: the vaults, only their folders allowed, the model, the index. */
export function newConfigJson(
  vaults: readonly NewVault[],
  modelId: string,
  indexPath: string,
): Record<string, unknown> {
  return {
    embed_model: modelId,
    allowed_roots: vaults.map((vault) => vault.absolute),
    index_path: indexPath,
    vaults: vaults.map((vault) => ({ id: vault.id, path: vault.absolute })),
  };
}

/**
 * The config's JSON with one more vault; its folder joins `allowed_roots` unless a root already covers
 * it. Refuses an id or a folder the config has already, naming the vault that has it.
 */
export function withVault(json: unknown, vault: NewVault, config: RagConfig): Record<string, unknown> {
  const { raw, parsed, written } = editable(json, config.configPath);
  const taken = config.vaults.find((other) => other.id === vault.id);
  if (taken) {
    throw new UsageError(`vault id '${vault.id}' is taken by ${taken.path}; choose another with --id`);
  }
  const same = config.vaults.find((other) => other.realPath === vault.realPath);
  if (same) throw new UsageError(`${vault.absolute} is already the vault '${same.id}'`);
  const covered = config.diode.allowedRoots.some((root) => isInside(vault.realPath, root));
  // An absent allowed_roots is the repository root; '.' keeps that meaning once the key is written.
  const roots = parsed.allowedRoots ?? ['.'];
  return {
    ...raw,
    allowed_roots: covered ? roots : [...roots, vault.absolute],
    vaults: [...written, { id: vault.id, path: vault.absolute }],
  };
}

/**
 * The config's JSON without the vault `id`; a root of `allowed_roots` that was that vault's folder goes
 * too, unless another vault lies under it. Works on a config whose folders are gone (that may be why
 * the vault is removed): paths are compared as written, resolved against `repoRoot`.
 */
export function withoutVault(json: unknown, id: string, file: string, repoRoot: string): Record<string, unknown> {
  const { raw, parsed, written } = editable(json, file);
  const removed = parsed.vaults.find((vault) => vault.id === id);
  if (!removed) {
    throw new UsageError(`no vault '${id}' in ${file} (vaults: ${parsed.vaults.map((vault) => vault.id).join(', ')})`);
  }
  const kept = parsed.vaults.filter((vault) => vault !== removed);
  if (kept.length === 0) {
    throw new UsageError(`'${id}' is the only vault of ${file}, and a config needs one: delete the file to start over`);
  }
  const at = (written: string) => path.resolve(repoRoot, written);
  const roots = parsed.allowedRoots?.filter(
    (root) => at(root) !== at(removed.path) || kept.some((vault) => isInside(at(vault.path), at(root))),
  );
  const vaults = written.filter((_, i) => parsed.vaults[i] !== removed);
  return { ...raw, ...(roots && { allowed_roots: roots }), vaults };
}

function editable(json: unknown, file: string) {
  const parsed = parseVaultsConfig(json);
  if ('problems' in parsed || !isRecord(json)) {
    const problems = 'problems' in parsed ? parsed.problems : [];
    throw new UsageError(`${file}:\n  ${problems.join('\n  ')}`);
  }
  // The other vaults stay as written, with keys beyond id and path (a vault's own `exclude` globs).
  const written = Array.isArray(json.vaults) ? json.vaults.filter(isRecord) : [];
  return { raw: json, parsed, written };
}
