import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { UsageError } from '@notegate/kit/cli';
import { checkDiode, type DiodeContext, isPersonalCloudPath, personalCloudMessage } from './diode-policy.js';
import type { ExcludeRules } from './exclude-globs.js';
import type { ModelSpec } from './models.js';
import { parseVaultsConfig } from './parse-config.js';
import { findRepositoryRoot } from './repo-root.js';

export interface ResolvedVault {
  readonly id: string;
  /** Absolute path as configured. */
  readonly path: string;
  /** Its real path (symlinks followed): the walk starts here. */
  readonly realPath: string;
  /** Files and folders the walk leaves out (docs/retrieval.md#excluding-notes); absent: none. */
  readonly exclude?: ExcludeRules;
}

/** A validated, resolved and frozen retrieval config. */
export interface RagConfig {
  readonly configPath: string;
  readonly repoRoot: string;
  readonly model: ModelSpec;
  readonly indexPath: string;
  readonly vaults: readonly ResolvedVault[];
  readonly diode: DiodeContext;
}

/**
 * Reads, validates and resolves a config. Every problem is a UsageError naming
 * the file and the key; vault paths go through the diode policy.
 */
export function loadRagConfig(configPath: string, homeDir: string): RagConfig {
  const file = path.resolve(configPath);
  return resolveRagConfig(readConfigFile(file), file, homeDir);
}

/**
 * Validates and resolves the JSON of a config as if it were the file `file` (its folder decides what
 * relative paths mean): what `loadRagConfig` does once the file is read, and what an edit of the config
 * checks before it writes anything.
 */
export function resolveRagConfig(json: unknown, file: string, homeDir: string): RagConfig {
  const parsed = parseVaultsConfig(json);
  if ('problems' in parsed) throw new UsageError(`${file}:\n  ${parsed.problems.join('\n  ')}`);
  const repoRoot = findRepositoryRoot(path.dirname(file));
  const problems: string[] = [];
  const allowedRoots = (parsed.allowedRoots ?? ['.']).flatMap((root, i) => {
    const real = realFolderOf(path.resolve(repoRoot, root));
    if ('problem' in real) problems.push(`allowed_roots[${i}]: ${real.problem}`);
    return 'problem' in real ? [] : [real.realPath];
  });
  const diode: DiodeContext = { allowedRoots, homeDirs: homeVariants(homeDir) };
  const vaults = parsed.vaults.flatMap((vault, i) => {
    const at = `vaults[${i}].path`;
    const absolute = path.resolve(repoRoot, vault.path);
    const folder = vaultFolderOf(absolute, diode.homeDirs);
    if ('problem' in folder) {
      problems.push(`${at}: ${folder.problem}`);
      return [];
    }
    const { realPath } = folder;
    const verdict = checkDiode([absolute, realPath], diode);
    if (!verdict.allowed) {
      problems.push(`${at}: ${verdict.message}`);
      return [];
    }
    return [{ id: vault.id, path: absolute, realPath, exclude: vault.exclude }];
  });
  const indexPath = path.resolve(repoRoot, parsed.indexPath);
  // The diode works both ways: the work-side index never lands in the personal drive either.
  if (isPersonalCloudPath(indexPath, diode.homeDirs)) problems.push(`index_path: ${personalCloudMessage(indexPath)}`);
  if (problems.length > 0) throw new UsageError(`${file}:\n  ${problems.join('\n  ')}`);
  return Object.freeze({ configPath: file, repoRoot, model: parsed.model, indexPath, vaults, diode });
}

/** The JSON of a config file; a missing file or one that is not JSON is a UsageError naming it. */
export function readConfigFile(file: string): unknown {
  if (!existsSync(file)) throw new UsageError(`config file ${file} does not exist (--config)`);
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new UsageError(`${file}: not valid JSON (${err instanceof Error ? err.message : String(err)})`);
  }
}

/** A folder's real path (symlinks followed), or what is wrong with it. */
export type FolderCheck = { readonly realPath: string } | { readonly problem: string };

function realFolderOf(absolute: string): FolderCheck {
  try {
    const realPath = realpathSync(absolute);
    if (statSync(realPath).isDirectory()) return { realPath };
    return { problem: `${absolute} is not a folder` };
  } catch {
    return { problem: `folder ${absolute} does not exist` };
  }
}

/**
 * A vault folder (absolute) as written and as its real path, both outside the personal cloud drive
 * (docs/retrieval.md#diode-policy); whether it lies under the allowed roots is the config's to check.
 */
export function vaultFolderOf(absolute: string, homeDirs: readonly string[]): FolderCheck {
  // Checked before realpath too, so a vault inside the container is refused even when it is absent here.
  if (isPersonalCloudPath(absolute, homeDirs)) return { problem: personalCloudMessage(absolute) };
  const folder = realFolderOf(absolute);
  if ('problem' in folder || !isPersonalCloudPath(folder.realPath, homeDirs)) return folder;
  return { problem: personalCloudMessage(folder.realPath) };
}

/** The home directory as given and as its real path (macOS homes may be symlinked). */
export function homeVariants(homeDir: string): string[] {
  try {
    const real = realpathSync(homeDir);
    return real === homeDir ? [homeDir] : [homeDir, real];
  } catch {
    return [homeDir];
  }
}
