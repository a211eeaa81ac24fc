import type { ConfigLocation } from '../config/config-location.js';
import type { RagConfig } from '../config/load-config.js';
import { hasVectors } from '../config/models.js';
import { missingModelFiles } from '../embed/model-files.js';
import { RagError } from '../errors/rag-error.js';
import { checkWeights, type WeightsCheck } from '../eval/model-check.js';
import { planVault } from '../indexer/plan.js';
import { type IndexContents, readIndexContents } from '../store/index-contents.js';
import type { IndexMeta } from '../store/index-meta.js';
import { walkVault } from '../walk/walk-vault.js';

/** A vault of the config: what the index holds of it, and what changed in its folder since. */
export interface VaultStatus {
  readonly id: string;
  readonly path: string;
  readonly files: number;
  readonly chunks: number;
  /** Markdown files in the folder the index does not hold yet. */
  readonly added: number;
  /** Files whose mtime or size differ from what the index holds (an index run reads them). */
  readonly modified: number;
  /** Files the index holds that are gone from the folder, or skipped now. */
  readonly removed: number;
}

export type IndexState =
  | { readonly state: 'missing' }
  | { readonly state: 'unreadable'; readonly reason: string }
  | { readonly state: 'ready'; readonly meta: IndexMeta };

/** What `notegate-rag status` reports (docs/retrieval.md#status). */
export interface IndexStatus {
  readonly config: ConfigLocation;
  readonly indexPath: string;
  readonly index: IndexState;
  readonly modelId: string;
  readonly vectors: boolean;
  /** The model's files missing from the cache (none for a lexical-only index). */
  readonly missingModelFiles: readonly string[];
  /** The weights' SHA-256 against the official release's (absent without a model, or with its weights missing). */
  readonly weights: WeightsCheck | undefined;
  readonly vaults: readonly VaultStatus[];
  /** Vaults the index holds that the config no longer names (the next full run drops them). */
  readonly unconfigured: readonly { readonly id: string; readonly files: number }[];
}

/**
 * Compares the index with the vault folders without writing anything: the counts the index holds, and
 * the files that changed since it took them, by the plan an index run makes (mtime and size against the
 * stored rows). Hashes the model's weights once to say whether they are the official release.
 */
export async function indexStatus(
  config: RagConfig,
  location: ConfigLocation,
  modelCacheDir: string,
): Promise<IndexStatus> {
  const { contents, index } = readIndex(config.indexPath);
  const vaults = config.vaults.map((vault): VaultStatus => {
    const listing = walkVault(vault, config.diode);
    const rows = contents?.files.get(vault.id) ?? new Map();
    // The files against what the index holds of them, whatever run wrote them (a run may be going on).
    const plan = planVault(listing.files, listing.skipped, rows, undefined);
    const counts = contents?.vaults.find((counted) => counted.vault === vault.id);
    const added = plan.candidates.filter((candidate) => candidate.row === undefined).length;
    return {
      id: vault.id,
      path: vault.path,
      files: counts?.files ?? 0,
      chunks: counts?.chunks ?? 0,
      added,
      modified: plan.candidates.length - added,
      removed: plan.removedIds.length,
    };
  });
  const configured = new Set(config.vaults.map((vault) => vault.id));
  const missing = missingModelFiles(modelCacheDir, config.model).map((file) => file.path);
  return {
    config: location,
    indexPath: config.indexPath,
    index,
    modelId: config.model.id,
    vectors: hasVectors(config.model),
    missingModelFiles: missing,
    weights: missing.length === 0 ? await checkWeights(config.model, modelCacheDir) : undefined,
    vaults,
    unconfigured: (contents?.vaults ?? [])
      .filter((counted) => !configured.has(counted.vault))
      .map((counted) => ({ id: counted.vault, files: counted.files })),
  };
}

function readIndex(indexPath: string): { contents: IndexContents | undefined; index: IndexState } {
  try {
    const contents = readIndexContents(indexPath);
    return { contents, index: { state: 'ready', meta: contents.meta } };
  } catch (err) {
    if (err instanceof RagError && err.code === 'ERR_INDEX_MISSING')
      return { contents: undefined, index: { state: 'missing' } };
    // A foreign file, another format, a damaged database: said as it is, never a stack trace.
    return {
      contents: undefined,
      index: { state: 'unreadable', reason: err instanceof Error ? err.message : String(err) },
    };
  }
}
