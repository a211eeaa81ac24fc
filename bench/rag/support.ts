/** Small helpers shared by the retrieval benchmarks. */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ModelSpec } from '@notegate/rag';
import { type FileRecord, findRepositoryRoot, IndexStore } from '@notegate/rag/internals';

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

/** Vault of the i-th synthetic file: 1% small, 9% mid, 90% big (the "small vault crowded" case, docs/retrieval.md#filters). */
export function vaultOf(fileIndex: number): string {
  const bucket = fileIndex % 100;
  return bucket === 0 ? 'small' : bucket < 10 ? 'mid' : 'big';
}

export interface Filter {
  readonly label: string;
  readonly vaults: readonly string[];
  readonly namespaces?: readonly string[];
}

export function repositoryRoot(): string {
  return findRepositoryRoot(path.dirname(fileURLToPath(import.meta.url)));
}

/**
 * The shared folder with the eval data: NOTEGATE_SHARED_DIR, else ../shared beside the repository. Without
 * it the benchmark stops with a message naming the variable and the folder it looked for.
 */
export function sharedDir(): string {
  const dir = process.env.NOTEGATE_SHARED_DIR ?? path.join(repositoryRoot(), '..', 'shared');
  if (existsSync(path.join(dir, 'eval'))) return dir;
  process.stderr.write(
    process.env.NOTEGATE_SHARED_DIR === undefined
      ? `NOTEGATE_SHARED_DIR is not set, and ${dir} (beside the repository) holds no eval/: set it to the shared folder with the eval data.\n`
      : `NOTEGATE_SHARED_DIR=${dir} holds no eval/ (the eval data).\n`,
  );
  process.exit(2);
}

/** What the benchmarks keep between runs (fetched jars, model caches, eval indexes): gitignored. */
export const BENCH_DIR = path.join(repositoryRoot(), '.notegate', 'bench');
/** The fp32 MiniLM weights under the quantized file's name (fetch-weights.js --fp32): measurements only. */
export const FP32_MODEL_CACHE = path.join(BENCH_DIR, 'models-fp32');

/**
 * The model cache with the real weights that `fetch-weights.js` installs:
 * NOTEGATE_BENCH_MODELS, else a folder under BENCH_DIR. Unless `mustExist`
 * is false, a benchmark stops with a message naming the fetch step when the
 * cache lacks MiniLM's weights.
 */
export function benchModelCache({ mustExist = true } = {}): string {
  const dir = process.env.NOTEGATE_BENCH_MODELS ?? path.join(BENCH_DIR, 'models');
  const weights = path.join(dir, 'Xenova', 'all-MiniLM-L6-v2', 'onnx', 'model_quantized.onnx');
  if (mustExist && !existsSync(weights)) {
    process.stderr.write(`${weights} is missing: run 'node bench/rag/dist/fetch-weights.js' first.\n`);
    process.exit(2);
  }
  return dir;
}

/** Names the model cache with the full-size stand-in models (real architecture and size, random weights). */
const STANDIN_MODELS_VARIABLE = 'NOTEGATE_STANDIN_MODELS';

/**
 * The model cache holding `model`'s full-size stand-in: the benchmarks measure
 * the cost of the real architecture, which the small model the tests generate
 * cannot stand for. Found only through the environment variable; without it
 * the benchmark stops with a message naming the variable.
 */
export function standinModelCache(model: ModelSpec): string {
  const dir = process.env[STANDIN_MODELS_VARIABLE] ?? '';
  const folder = path.join(dir, ...model.hubRepo.split('/'));
  if (dir !== '' && existsSync(folder)) return dir;
  process.stderr.write(
    dir === ''
      ? `${STANDIN_MODELS_VARIABLE} is not set: set it to a model cache folder that holds the full-size stand-in ${model.hubRepo}/ (config, tokenizer, onnx/model_quantized.onnx).\n`
      : `${STANDIN_MODELS_VARIABLE}=${dir} holds no ${model.hubRepo}/ (looked for ${folder}).\n`,
  );
  process.exit(2);
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

/** Synthetic indexes: files of this many chunks, spread over this many namespaces. */
export const SYNTHETIC_CHUNKS_PER_FILE = 10;
const SYNTHETIC_NAMESPACES = 10;

/** The namespace of the i-th synthetic file. */
export function namespaceOf(fileIndex: number): string {
  return `ns${fileIndex % SYNTHETIC_NAMESPACES}`;
}

/**
 * Writes `vectors` through the real write path (IndexStore.replaceFile), in
 * files of SYNTHETIC_CHUNKS_PER_FILE chunks spread over vaults (`vaultOf`) and
 * namespaces (`namespaceOf`).
 */
export function writeSyntheticIndex(file: string, model: ModelSpec, vectors: readonly Float32Array[]): void {
  const store = IndexStore.open(file, { model, nowMs: Date.now() });
  try {
    for (let f = 0; f * SYNTHETIC_CHUNKS_PER_FILE < vectors.length; f += 1) {
      store.replaceFile(
        syntheticFile(vaultOf(f), `${namespaceOf(f)}/note-${f}.md`, namespaceOf(f), `Note ${f}`),
        syntheticChunks(f, vectors),
        0,
      );
    }
  } finally {
    store.close();
  }
}

/** The chunks of the f-th synthetic file: its slice of `vectors`. */
export function syntheticChunks(fileIndex: number, vectors: readonly Float32Array[]) {
  const first = fileIndex * SYNTHETIC_CHUNKS_PER_FILE;
  return vectors.slice(first, first + SYNTHETIC_CHUNKS_PER_FILE).map((vector, seq) => ({
    seq,
    heading: 'Section',
    lineStart: seq * 10 + 1,
    lineEnd: seq * 10 + 9,
    text: `synthetic chunk ${fileIndex}/${seq}`,
    tokenCount: 100,
    vector,
  }));
}
