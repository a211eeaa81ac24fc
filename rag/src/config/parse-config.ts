import { isRecord } from '@notegate/kit';
import { compileExcludes, type ExcludeRules } from './exclude-globs.js';
import { DEFAULT_MODEL_ID, findModel, type ModelSpec, modelWhitelist } from './models.js';

/** docs/retrieval.md#config: vault ids. */
export const VAULT_ID_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;
export const DEFAULT_INDEX_PATH = '.notegate/index.sqlite';

const TOP_LEVEL_KEYS = ['embed_model', 'allowed_roots', 'index_path', 'exclude', 'vaults'] as const;
const VAULT_KEYS = ['id', 'path', 'exclude'] as const;

export interface VaultEntry {
  readonly id: string;
  /** As written in the config (relative paths resolve against the repository root). */
  readonly path: string;
  /** The config's `exclude` globs and the vault's own, compiled (docs/retrieval.md#excluding-notes). */
  readonly exclude: ExcludeRules;
}

/** The config file after validation, paths not yet resolved. */
export interface VaultsConfigFile {
  readonly model: ModelSpec;
  /** Undefined when absent: the repository root is then the only allowed root. */
  readonly allowedRoots: readonly string[] | undefined;
  readonly indexPath: string;
  readonly vaults: readonly VaultEntry[];
}

/**
 * Validates the parsed JSON of a vaults config. Every problem is reported at
 * once, each naming its full key path (`vaults[2].id`).
 */
export function parseVaultsConfig(value: unknown): VaultsConfigFile | { readonly problems: readonly string[] } {
  const problems: string[] = [];
  if (!isRecord(value)) return { problems: ['the config must be a JSON object'] };
  problems.push(...unknownKeys(value, TOP_LEVEL_KEYS, ''));
  const model = parseModel(value.embed_model, problems);
  const allowedRoots = value.allowed_roots === undefined ? undefined : parseRoots(value.allowed_roots, problems);
  const indexPath =
    value.index_path === undefined ? DEFAULT_INDEX_PATH : nonEmptyString(value.index_path, 'index_path', problems);
  const everyVault = parseExclude(value.exclude, 'exclude', problems);
  const vaults = parseVaults(value.vaults, everyVault, problems);
  if (problems.length > 0 || model === undefined) return { problems };
  return { model, allowedRoots, indexPath: indexPath ?? DEFAULT_INDEX_PATH, vaults };
}

function parseModel(value: unknown, problems: string[]): ModelSpec | undefined {
  if (value === undefined) return findModel(DEFAULT_MODEL_ID);
  const model = typeof value === 'string' ? findModel(value) : undefined;
  if (!model) problems.push(`embed_model: ${JSON.stringify(value)} is not whitelisted (allowed: ${modelWhitelist()})`);
  return model;
}

function parseRoots(value: unknown, problems: string[]): string[] {
  if (!Array.isArray(value) || value.length === 0) {
    problems.push('allowed_roots: must be a non-empty list of folder paths');
    return [];
  }
  return value.flatMap((root, i) => nonEmptyString(root, `allowed_roots[${i}]`, problems) ?? []);
}

/** An absent list excludes nothing; a list must hold globs, and a malformed one is named with its key. */
function parseExclude(value: unknown, at: string, problems: string[]): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((glob) => typeof glob === 'string')) {
    problems.push(`${at}: must be a list of glob strings (such as "templates/**" or "*.excalidraw.md")`);
    return [];
  }
  const malformed = value.flatMap((glob, i) => {
    const checked = compileExcludes([glob]);
    return checked.ok ? [] : [`${at}[${i}]: ${checked.problem}`];
  });
  problems.push(...malformed);
  return malformed.length === 0 ? value : [];
}

function parseVaults(value: unknown, everyVault: readonly string[], problems: string[]): VaultEntry[] {
  if (!Array.isArray(value) || value.length === 0) {
    problems.push('vaults: must be a non-empty list of { "id", "path" } objects');
    return [];
  }
  const seen = new Set<string>();
  return value.flatMap((entry, i) => {
    const at = `vaults[${i}]`;
    if (!isRecord(entry)) {
      problems.push(`${at}: must be an object with "id" and "path"`);
      return [];
    }
    problems.push(...unknownKeys(entry, VAULT_KEYS, `${at}.`));
    const id = nonEmptyString(entry.id, `${at}.id`, problems);
    const path = nonEmptyString(entry.path, `${at}.path`, problems);
    if (id !== undefined && !VAULT_ID_PATTERN.test(id)) {
      problems.push(`${at}.id: ${JSON.stringify(id)} is not a valid vault id (must match ${VAULT_ID_PATTERN.source})`);
    } else if (id !== undefined && seen.has(id)) {
      problems.push(`${at}.id: duplicate vault id ${JSON.stringify(id)}`);
    }
    if (id !== undefined) seen.add(id);
    const own = parseExclude(entry.exclude, `${at}.exclude`, problems);
    const exclude = compileExcludes([...everyVault, ...own]);
    if (id === undefined || path === undefined || !exclude.ok) return [];
    return [{ id, path, exclude: exclude.rules }];
  });
}

function unknownKeys(record: Record<string, unknown>, known: readonly string[], prefix: string): string[] {
  return Object.keys(record)
    .filter((key) => !known.includes(key))
    .map((key) => `${prefix}${key}: unknown key (allowed: ${known.join(', ')})`);
}

function nonEmptyString(value: unknown, at: string, problems: string[]): string | undefined {
  if (typeof value === 'string' && value.trim() !== '') return value;
  problems.push(`${at}: must be a non-empty string`);
  return undefined;
}
