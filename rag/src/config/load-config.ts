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

/** The default `--config`: `rag/vaults.json` under the repository root found from `cwd`. */
export function defaultConfigPath(cwd: string): string {
  return path.join(findRepositoryRoot(cwd), 'rag', 'vaults.json');
}

/**
 * Reads, validates and resolves a config. Every problem is a UsageError naming
 * the file and the key; vault paths go through the diode policy.
 */
export function loadRagConfig(configPath: string, homeDir: string): RagConfig {
  const file = path.resolve(configPath);
  const parsed = parseVaultsConfig(readJson(file));
  if ('problems' in parsed) throw new UsageError(`${file}:\n  ${parsed.problems.join('\n  ')}`);
  const repoRoot = findRepositoryRoot(path.dirname(file));
  const problems: string[] = [];
  const allowedRoots = (parsed.allowedRoots ?? ['.']).flatMap((root, i) => {
    const real = realFolder(path.resolve(repoRoot, root), `allowed_roots[${i}]`, problems);
    return real === undefined ? [] : [real];
  });
  const diode: DiodeContext = { allowedRoots, homeDirs: homeVariants(homeDir) };
  const vaults = parsed.vaults.flatMap((vault, i) => {
    const at = `vaults[${i}].path`;
    const absolute = path.resolve(repoRoot, vault.path);
    // Checked before realpath too, so a vault inside the container is refused even when it is absent here.
    if (isPersonalCloudPath(absolute, diode.homeDirs)) {
      problems.push(`${at}: ${personalCloudMessage(absolute)}`);
      return [];
    }
    const realPath = realFolder(absolute, at, problems);
    if (realPath === undefined) return [];
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

function readJson(file: string): unknown {
  if (!existsSync(file)) throw new UsageError(`config file ${file} does not exist (--config)`);
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new UsageError(`${file}: not valid JSON (${err instanceof Error ? err.message : String(err)})`);
  }
}

function realFolder(absolute: string, at: string, problems: string[]): string | undefined {
  try {
    const real = realpathSync(absolute);
    if (statSync(real).isDirectory()) return real;
    problems.push(`${at}: ${absolute} is not a folder`);
  } catch {
    problems.push(`${at}: folder ${absolute} does not exist`);
  }
  return undefined;
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
