/**
 * The ETA an index run shows, before and after docs/retrieval.md#index-runs's rate-based estimate, against
 * the time that was really left: one real index run of the eval vault (1,873 notes) with the e5-small
 * stand-in (real size: its load is part of the first file's time), every progress event recorded, then
 * every estimate computed over the same events at the same moments (warm-up / window in the labels).
 *
 * Run: npx tsc -b && node bench/rag/dist/index-eta.js [--vault DIR] [--files N]
 * (the stand-in model: NOTEGATE_STANDIN_MODELS; the eval vault: the shared folder, NOTEGATE_SHARED_DIR,
 * else ../shared beside the repository)
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { findModel, type IndexProgress, loadRagConfig, noDownloads, runIndex } from '@notegate/rag';
import { RATE_WINDOW_MS, RateEstimate, RemainingTime, WARM_UP_MS } from '@notegate/rag/internals';
import { arg, printTable, sharedDir, standinModelCache } from './support.js';

const MODEL_ID = 'intfloat/multilingual-e5-small';
const model = findModel(MODEL_ID);
if (!model) throw new Error(`unknown model ${MODEL_ID}`);
const cache = standinModelCache(model);
const source = arg('--vault', path.join(sharedDir(), 'eval', 'vault-til'));
const limit = Number(arg('--files', '0'));

type FileDone = Extract<IndexProgress, { kind: 'file-done' }>;

/** The estimate before: the time since the plan, scaled by the bytes left over the bytes done. */
function etaBefore(plannedAtMs: number, event: FileDone, atMs: number): number {
  return ((atMs - plannedAtMs) * (event.bytesTotal - event.bytesDone)) / event.bytesDone;
}

function seconds(ms: number | undefined): string {
  return ms === undefined ? 'estimating' : `${(ms / 1000).toFixed(1)} s`;
}

const work = mkdtempSync(path.join(tmpdir(), 'notegate-eta-'));
try {
  const vault = path.join(work, 'vault');
  if (limit > 0) {
    mkdirSync(vault);
    const notes = readdirSync(source, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.md'));
    for (const note of notes.slice(0, limit))
      cpSync(path.join(source, note), path.join(vault, note.replaceAll('/', '_')));
  } else {
    cpSync(source, vault, { recursive: true });
  }
  const configPath = path.join(work, 'vaults.json');
  writeFileSync(
    configPath,
    JSON.stringify({
      embed_model: MODEL_ID,
      allowed_roots: [work],
      index_path: path.join(work, 'index.sqlite'),
      vaults: [{ id: 'til', path: vault }],
    }),
  );
  const events: { readonly atMs: number; readonly event: IndexProgress }[] = [];
  const startedAtMs = performance.now();
  await runIndex({
    config: loadRagConfig(configPath, work),
    modelCacheDir: cache,
    download: noDownloads(new URL('http://127.0.0.1:9/')),
    onProgress: (event) => events.push({ atMs: performance.now(), event }),
  });
  const plannedAtMs = events.find(({ event }) => event.kind === 'planned')?.atMs ?? startedAtMs;
  const done = events.filter((entry): entry is { atMs: number; event: FileDone } => entry.event.kind === 'file-done');
  const endMs = done.at(-1)?.atMs ?? plannedAtMs;
  /** An estimate of one measure (`files` or `bytes`) alone. */
  const single = (measure: 'files' | 'bytes') => {
    const rate = new RateEstimate();
    return (atMs: number, event: FileDone) => {
      rate.add(atMs, measure === 'files' ? event.filesDone : event.bytesDone);
      return rate.remainingMs(atMs, measure === 'files' ? event.filesTotal : event.bytesTotal);
    };
  };
  const mean = (options: { warmUpMs: number; windowMs: number }) => {
    const time = new RemainingTime(options);
    return (atMs: number, event: FileDone) => {
      time.add(atMs, event);
      return time.remainingMs(atMs, event);
    };
  };
  const variants: { readonly label: string; readonly eta: (atMs: number, event: FileDone) => number | undefined }[] = [
    { label: 'before: bytes since the plan', eta: (atMs, event) => etaBefore(plannedAtMs, event, atMs) },
    { label: 'bytes, 10 s / 60 s', eta: single('bytes') },
    { label: 'files, 10 s / 60 s', eta: single('files') },
    { label: 'mean of both, 3 s / 20 s', eta: mean({ warmUpMs: 3_000, windowMs: 20_000 }) },
    { label: 'chosen: mean of both, 10 s / 60 s', eta: mean({ warmUpMs: WARM_UP_MS, windowMs: RATE_WINDOW_MS }) },
  ];
  const marks = [1, 2, 5, 10, 25, 50, 75, 90].map((percent) => Math.max(1, Math.round((done.length * percent) / 100)));
  const rows: string[][] = [];
  const errors = variants.map(() => ({ worstOver: 0, worstUnder: 0, shown: 0 }));
  for (const [i, { atMs, event }] of done.entries()) {
    const left = endMs - atMs;
    const etas = variants.map((variant) => variant.eta(atMs, event));
    // Over the first nine tenths, when a wrong estimate is what a user sees longest.
    if (i < done.length * 0.9 && left > 0) {
      etas.forEach((eta, v) => {
        const error = errors[v];
        if (eta === undefined || !error) return;
        error.shown += 1;
        error.worstOver = Math.max(error.worstOver, eta / left);
        error.worstUnder = Math.max(error.worstUnder, left / Math.max(eta, 1));
      });
    }
    if (marks.includes(i + 1)) {
      rows.push([
        `${i + 1} (${((100 * event.bytesDone) / event.bytesTotal).toFixed(0)}% of the bytes)`,
        seconds(atMs - plannedAtMs),
        seconds(left),
        ...etas.map(seconds),
      ]);
    }
  }
  console.log(
    `${done.length} files, the first one finished ${seconds(done[0] ? done[0].atMs - plannedAtMs : 0)} after the plan (model load included); the run took ${seconds(endMs - plannedAtMs)}`,
  );
  printTable(['files done', 'since the plan', 'really left', ...variants.map((variant) => variant.label)], rows);
  console.log('\nOver the first 90% of the files: how far the shown ETA was from the time really left');
  printTable(
    ['estimate', 'worst over-estimate', 'worst under-estimate', 'files with an ETA shown'],
    variants.map((variant, v) => [
      variant.label,
      `${(errors[v]?.worstOver ?? 0).toFixed(1)}x`,
      `${(errors[v]?.worstUnder ?? 0).toFixed(1)}x`,
      String(errors[v]?.shown ?? 0),
    ]),
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
