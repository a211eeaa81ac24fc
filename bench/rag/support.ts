/** Small helpers shared by the retrieval benchmarks. */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type FileRecord, findRepositoryRoot, type VectorMatrix } from '@notegate/rag';

/** Deterministic PRNG (mulberry32), so every run measures the same data. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A random unit vector (Gaussian components, then L2-normalized). */
export function unitVector(random: () => number, dimension: number): Float32Array {
  const v = new Float32Array(dimension);
  let norm = 0;
  for (let i = 0; i < dimension; i += 1) {
    const g = Math.sqrt(-2 * Math.log(random() || 1e-12)) * Math.cos(2 * Math.PI * random());
    v[i] = g;
    norm += g * g;
  }
  const scale = 1 / Math.sqrt(norm);
  for (let i = 0; i < dimension; i += 1) v[i] = (v[i] ?? 0) * scale;
  return v;
}

export interface Timing {
  readonly medianMs: number;
  readonly p95Ms: number;
}

export function timings(samplesMs: readonly number[]): Timing {
  const sorted = [...samplesMs].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
  return { medianMs: at(0.5), p95Ms: at(0.95) };
}

export function printTable(headers: readonly string[], rows: readonly (readonly string[])[]): void {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const format = (cells: readonly string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  console.log(format(headers));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const row of rows) console.log(format(row));
}

export function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** The value after `--name` on the command line, or the fallback. */
export function arg(name: string, fallback: string): string {
  const at = process.argv.indexOf(name);
  return at === -1 ? fallback : (process.argv[at + 1] ?? fallback);
}

export interface Filter {
  readonly label: string;
  readonly vaults: readonly string[];
  readonly namespaces?: readonly string[];
}

/** The filter is a mask over integer codes, checked before any dot product: filtered rows cost nothing. */
export function exactTopK(matrix: VectorMatrix, query: Float32Array, k: number, filter: Filter): number[] {
  const vaultOk = mask(matrix.vaultNames, filter.vaults);
  const namespaceOk = filter.namespaces ? mask(matrix.namespaceNames, filter.namespaces) : undefined;
  const { data, dimension } = matrix;
  const bestIds: number[] = [];
  const bestScores: number[] = [];
  for (let row = 0; row < matrix.count; row += 1) {
    if (!vaultOk[matrix.vaultCodes[row] ?? 0]) continue;
    if (namespaceOk && !namespaceOk[matrix.namespaceCodes[row] ?? 0]) continue;
    let a = 0;
    let b = 0;
    let c = 0;
    let d = 0;
    for (let j = 0, o = row * dimension; j < dimension; j += 4, o += 4) {
      a += (data[o] ?? 0) * (query[j] ?? 0);
      b += (data[o + 1] ?? 0) * (query[j + 1] ?? 0);
      c += (data[o + 2] ?? 0) * (query[j + 2] ?? 0);
      d += (data[o + 3] ?? 0) * (query[j + 3] ?? 0);
    }
    const score = a + b + c + d;
    if (bestScores.length === k && score <= (bestScores[k - 1] ?? 0)) continue;
    let at = bestScores.length === k ? k - 1 : bestScores.length;
    while (at > 0 && (bestScores[at - 1] ?? 0) < score) at -= 1;
    bestScores.splice(at, 0, score);
    bestIds.splice(at, 0, matrix.chunkIds[row] ?? 0);
    if (bestScores.length > k) {
      bestScores.pop();
      bestIds.pop();
    }
  }
  return bestIds;
}

function mask(names: readonly string[], wanted: readonly string[]): Uint8Array {
  return Uint8Array.from(names, (name) => (wanted.includes(name) ? 1 : 0));
}

/** The shared folder (stand-in models, eval data): NOTEGATE_SHARED_DIR, else ../shared beside the repository. */
export function sharedDir(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  return process.env.NOTEGATE_SHARED_DIR ?? path.join(findRepositoryRoot(here), '..', 'shared');
}

/** A file row for synthetic indexes: no real file behind it, so no stamps or hashes. */
export function syntheticFile(vault: string, filePath: string, namespace: string, title: string): FileRecord {
  return {
    vault,
    path: filePath,
    namespace,
    title,
    aliases: [],
    tags: [],
    mtimeMs: 0,
    sizeBytes: 0,
    contentSha256: '',
    fingerprint: '',
  };
}
