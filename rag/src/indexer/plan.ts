import type { FileRow } from '../store/index-contents.js';
import type { SkippedFile, VaultFile } from '../walk/walk-vault.js';

/** Larger notes are skipped with a reason: they are exports or logs, and would hold the model for minutes. */
export const MAX_FILE_BYTES = 8 * 1024 * 1024;

export interface Candidate {
  readonly file: VaultFile;
  readonly row: FileRow | undefined;
}

export interface VaultPlan {
  /** Same mtime, size and fingerprint: not even read. */
  readonly unchanged: number;
  /** Must be read and hashed; some turn out unchanged. */
  readonly candidates: readonly Candidate[];
  readonly skipped: readonly SkippedFile[];
  /** Rows of files that are gone, or skipped now (the index holds only what the policy admits). */
  readonly removedIds: readonly number[];
}

/**
 * docs/retrieval.md#index-runs: (mtime, size) is the fast path, the content hash is the
 * truth, and the fingerprint decides whether stored vectors still count. Without a
 * fingerprint, only the files are compared (`status`: what changed in the folders).
 */
export function planVault(
  files: readonly VaultFile[],
  walkSkipped: readonly SkippedFile[],
  rows: ReadonlyMap<string, FileRow>,
  fingerprint: string | undefined,
): VaultPlan {
  const skipped = [...walkSkipped];
  const candidates: Candidate[] = [];
  const kept = new Set<string>();
  let unchanged = 0;
  for (const file of files) {
    if (file.sizeBytes > MAX_FILE_BYTES) {
      skipped.push({
        vault: file.vault,
        path: file.path,
        reason: 'too_large',
        detail: `${file.sizeBytes} bytes, the limit is ${MAX_FILE_BYTES}`,
      });
      continue;
    }
    kept.add(file.path);
    const row = rows.get(file.path);
    const sameVectors = fingerprint === undefined || row?.fingerprint === fingerprint;
    if (row && row.mtimeMs === file.mtimeMs && row.sizeBytes === file.sizeBytes && sameVectors) {
      unchanged += 1;
    } else {
      candidates.push({ file, row });
    }
  }
  const removedIds = [...rows.values()].filter((row) => !kept.has(row.path)).map((row) => row.id);
  return { unchanged, candidates, skipped, removedIds };
}
