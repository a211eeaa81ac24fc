import path from 'node:path';
import type { ResidentModelState } from '../embed/resident-model.js';
import type { SnapshotState } from '../snapshot/snapshot-source.js';

export interface HealthInputs {
  readonly version: string;
  readonly modelId: string;
  readonly model: ResidentModelState;
  readonly index: SnapshotState;
  /** The index changed after the served snapshot was taken (a reload is pending or running). */
  readonly stale: boolean;
  readonly indexPath: string;
  readonly configuredVaults: readonly string[];
}

/**
 * GET /health: `{status, model, files, chunks}` (docs/retrieval.md#get-health) and what
 * a user needs to trust it (docs/retrieval.md#get-health): model readiness, the index's
 * freshness and completeness, tokenizer, vector backend, per-vault counts.
 * `status` is `ok` only when both the model and a complete index are ready.
 */
export function healthBody(inputs: HealthInputs): { status: number; body: Record<string, unknown> } {
  const { index, model } = inputs;
  const snapshot = index.kind === 'ready' ? index.snapshot : undefined;
  const complete = snapshot?.meta.lastIndexedAtMs !== undefined;
  const status =
    model.state === 'failed' || index.kind === 'missing' || index.kind === 'failed' || (snapshot && !complete)
      ? 'degraded'
      : model.state === 'loading' || index.kind === 'loading'
        ? 'starting'
        : 'ok';
  const counts = new Map(snapshot?.vaults.map((v) => [v.vault, v]) ?? []);
  const vaultIds = [...new Set([...inputs.configuredVaults, ...counts.keys()])].sort();
  return {
    status: status === 'ok' ? 200 : 503,
    body: {
      status,
      version: inputs.version,
      model: inputs.modelId,
      files: snapshot?.files ?? 0,
      chunks: snapshot?.chunks ?? 0,
      model_state: model.state,
      model_error: model.state === 'failed' ? model.reason : null,
      index: {
        state: index.kind,
        error: index.kind === 'missing' || index.kind === 'failed' ? index.reason : null,
        path: inputs.indexPath,
        schema_version: snapshot?.meta.schemaVersion ?? null,
        model: snapshot?.meta.modelId ?? null,
        dimension: snapshot?.meta.dimension ?? null,
        lexical_layout: snapshot?.meta.lexicalLayout ?? null,
        lexical_scoring: snapshot?.lexical.scoring ?? null,
        vector_backend: snapshot?.vectorBackend ?? null,
        vector_search_exact: snapshot?.vectorsExact ?? null,
        fingerprint: snapshot?.meta.fingerprint || null,
        created_at: isoOrNull(snapshot?.meta.createdAtMs),
        last_indexed_at: isoOrNull(snapshot?.meta.lastIndexedAtMs),
        complete: snapshot ? complete : null,
        loaded_at: isoOrNull(snapshot?.loadedAtMs),
        reload_pending: inputs.stale,
      },
      vaults: vaultIds.map((id) => ({
        id,
        configured: inputs.configuredVaults.includes(id),
        files: counts.get(id)?.files ?? 0,
        chunks: counts.get(id)?.chunks ?? 0,
      })),
    },
  };
}

function isoOrNull(ms: number | undefined): string | null {
  return ms === undefined ? null : new Date(ms).toISOString();
}

/**
 * docs/retrieval.md#get-health: the index path as /health shows it without `--verbose-health`: relative
 * to the repository root of the config (`.notegate/index.sqlite`), or only the file name for an index
 * outside it, so that the answer does not tell the machine's directory layout (user names, home paths).
 */
export function reportedIndexPath(indexPath: string, repoRoot: string): string {
  const relative = path.relative(repoRoot, indexPath);
  const outside = relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative);
  if (relative === '' || outside) return path.basename(indexPath);
  return relative.split(path.sep).join('/');
}
