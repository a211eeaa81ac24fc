/**
 * The dense leg and the fusion, measured with the real all-MiniLM-L6-v2
 * weights (fetch-weights.js) through `eval`'s own code: each dataset is
 * indexed once (`buildEvalIndex`, kept under BENCH_DIR so a second run embeds
 * nothing) and every fusion variant is scored on that one index
 * (`scoreMode`). Variants are chosen on SciFact train only: the best train
 * nDCG@10 among the variants that stay within 1 point of the lexical leg when
 * the dense leg is fed the vector of another train query (a confidently wrong
 * dense leg, as from a model that does not know the query's language);
 * SciFact test and XQuAD de/ru/zh are reported beside them, not used by the rule
 * (docs/retrieval.md#fusion-and-mmr).
 * Also the int8 scan against the exact float scan over the same vectors, and
 * with `--fp32` the fp32 weights against the quantized ones (dense only).
 *
 * Goals (SciFact test): dense within 1 point of the published 64.5; hybrid
 * nDCG@10 ≥ 72.0 and Recall@100 ≥ 0.95; XQuAD hybrid ≥ lexical − 1 in each
 * language; the int8 scan loses ≤ 0.3 points.
 *
 * Run: npx tsc -b && node bench/rag/dist/fusion-quality.js [--fp32] [--json FILE]
 */
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  type BeirDataset,
  buildEvalIndex,
  DEFAULT_FUSION,
  type Embedder,
  type EvalIndex,
  type EvalMode,
  type FusionSettings,
  findModel,
  loadBeirDataset,
  loadTransformersEmbedder,
  type ModelSpec,
  type ModeReport,
  meanScores,
  noDownloads,
  scoreMode,
  scoreQuery,
} from '@notegate/rag';
import { exactScan, rangesFor } from '@notegate/rag/internals';
import { arg, BENCH_DIR, benchModelCache, FP32_MODEL_CACHE, printTable, sharedDir } from './support.js';

const MINILM = findModel('sentence-transformers/all-MiniLM-L6-v2');
if (!MINILM) throw new Error('MiniLM is not whitelisted');
const model: ModelSpec = MINILM;
const OFFLINE = noDownloads(new URL('http://127.0.0.1:9/'));
const LANGUAGES = ['de', 'ru', 'zh'] as const;

/** One embedder per cache for the whole run, its query vectors remembered: every variant embeds a query once. */
async function rememberingEmbedder(cache: string): Promise<Embedder> {
  const embedder = await loadTransformersEmbedder(model, cache);
  const queries = new Map<string, Float32Array>();
  return {
    ...embedder,
    embedQuery: async (query) => {
      const known = queries.get(query);
      if (known) return known;
      const vector = await embedder.embedQuery(query);
      queries.set(query, vector);
      return vector;
    },
    dispose: async () => undefined,
  };
}

/**
 * The dense leg of a model that knows nothing of the query: each query of
 * `queries` is embedded as the next one in the list (a real query vector, for
 * the wrong query). Other texts are embedded as they are.
 */
function mismatched(embedder: Embedder, queries: readonly string[]): Embedder {
  const next = new Map(queries.map((query, i) => [query, queries[(i + 1) % queries.length] ?? query]));
  return { ...embedder, embedQuery: (query) => embedder.embedQuery(next.get(query) ?? query) };
}

async function indexOf(datasetDir: string, name: string, embedder: Embedder, cache: string): Promise<EvalIndex> {
  const { documents } = await loadBeirDataset(datasetDir, 'test');
  const started = performance.now();
  const built = await buildEvalIndex({
    documents,
    model,
    modelCacheDir: cache,
    download: OFFLINE,
    workDir: path.join(BENCH_DIR, 'eval', name),
    loadEmbedder: async () => embedder,
  });
  process.stderr.write(
    `${name}: ${built.chunks} chunks, ready in ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
  );
  return built;
}

interface Variant {
  readonly label: string;
  readonly stage: string;
  readonly fusion: FusionSettings;
}

interface Scored {
  readonly variant: Variant;
  readonly train: ModeReport;
  /** SciFact train with a mismatched dense leg (`mismatched`). */
  readonly trainMismatched: ModeReport;
  readonly test: ModeReport;
  readonly xquad: Partial<Record<(typeof LANGUAGES)[number], ModeReport>>;
}

const percent = (x: number) => (100 * x).toFixed(1);

function rrf(k: number, dense: number, depth = 100): FusionSettings {
  return { ...DEFAULT_FUSION, method: 'rrf', k, weights: { dense, lexical: 1 }, depth, guard: undefined };
}

function convex(alpha: number, depth = 100): FusionSettings {
  return {
    ...DEFAULT_FUSION,
    method: 'convex',
    weights: { dense: alpha, lexical: 1 - alpha },
    depth,
    guard: undefined,
  };
}

function describe(f: FusionSettings): string {
  const method =
    f.method === 'rrf'
      ? `RRF k=${f.k}, dense ${f.weights.dense} : lexical ${f.weights.lexical}`
      : `convex, dense ${f.weights.dense.toFixed(2)} : lexical ${f.weights.lexical.toFixed(2)}`;
  const guard = f.guard ? `, guard top ${f.guard.depth} full at ${f.guard.full}` : '';
  return `${method}, depth ${f.depth}${guard}`;
}

async function main(): Promise<void> {
  const cache = benchModelCache();
  const evalDir = path.join(sharedDir(), 'eval');
  const scifactDir = path.join(evalDir, 'scifact');
  const embedder = await rememberingEmbedder(cache);
  const scifact = await indexOf(scifactDir, 'scifact-minilm', embedder, cache);
  const train = await loadBeirDataset(scifactDir, 'train');
  const test = await loadBeirDataset(scifactDir, 'test');
  const wrongDense = mismatched(
    embedder,
    [...train.judgments.keys()].map((id) => train.queries.get(id) ?? ''),
  );
  const scifactWrongDense = await indexOf(scifactDir, 'scifact-minilm', wrongDense, cache);
  const xquad = new Map<string, { index: EvalIndex; dataset: BeirDataset }>();
  for (const language of LANGUAGES) {
    const dir = path.join(evalDir, 'xquad', language);
    xquad.set(language, {
      index: await indexOf(dir, `xquad-${language}-minilm`, embedder, cache),
      dataset: await loadBeirDataset(dir, 'test'),
    });
  }

  const score = async (variant: Variant, mode: EvalMode = 'hybrid'): Promise<Scored> => {
    const options = { fusion: variant.fusion };
    const result: Scored = {
      variant,
      train: await scoreMode(scifact, train, mode, options),
      trainMismatched: await scoreMode(scifactWrongDense, train, mode, options),
      test: await scoreMode(scifact, test, mode, options),
      xquad: {},
    };
    for (const language of LANGUAGES) {
      const x = xquad.get(language);
      if (x) result.xquad[language] = await scoreMode(x.index, x.dataset, mode, options);
    }
    process.stderr.write(
      `${variant.label}: train ${percent(result.train.ndcgAt10)}, test ${percent(result.test.ndcgAt10)}\n`,
    );
    return result;
  };
  const legs = [
    await score({ label: 'lexical only', stage: 'leg', fusion: DEFAULT_FUSION }, 'lexical'),
    await score({ label: 'dense only', stage: 'leg', fusion: DEFAULT_FUSION }, 'dense'),
  ];
  const lexicalTrain = legs[0]?.train.ndcgAt10 ?? 0;
  /** The rule: never more than 1 point under the lexical leg with a wrong dense leg; then the best train nDCG@10. */
  const admissible = (s: Scored) => s.trainMismatched.ndcgAt10 >= lexicalTrain - 0.01;
  const best = (scored: readonly Scored[]) => {
    const kept = scored.filter(admissible);
    return (kept.length > 0 ? kept : scored).reduce((a, b) => (b.train.ndcgAt10 > a.train.ndcgAt10 ? b : a));
  };

  const tried: Scored[] = [];
  const run = async (stage: string, fusions: readonly FusionSettings[]) => {
    const scored: Scored[] = [];
    for (const fusion of fusions) scored.push(await score({ label: describe(fusion), stage, fusion }));
    tried.push(...scored);
    return scored;
  };
  // A: RRF, k and the dense weight; B: a score-normalised convex combination; both with 100 candidates a leg.
  await run('A', [...[10, 60].flatMap((k) => [0.25, 0.5, 1].map((dense) => rrf(k, dense))), rrf(30, 0.5)]);
  await run(
    'B',
    [0.2, 0.25, 0.3, 0.35, 0.4, 0.5].map((alpha) => convex(alpha)),
  );
  // C: candidate depth around the best so far.
  const leader = best(tried).variant.fusion;
  await run(
    'C',
    [30, 50, 200].map((depth) => ({ ...leader, depth })),
  );
  // D: the agreement guard on the best so far.
  const deep = best(tried).variant.fusion;
  await run(
    'D',
    [0.1, 0.3].map((full) => ({ ...deep, guard: { depth: 10, full } })),
  );
  const chosen = best(tried);

  const row = (s: Scored, mark = '') => [
    `${s.variant.stage} ${s.variant.label}${mark}`,
    percent(s.train.ndcgAt10),
    `${percent(s.trainMismatched.ndcgAt10)}${admissible(s) ? '' : ' (out)'}`,
    percent(s.train.recallAt100),
    percent(s.test.ndcgAt10),
    percent(s.test.recallAt10),
    percent(s.test.recallAt100),
    ...LANGUAGES.map((l) => percent(s.xquad[l]?.ndcgAt10 ?? 0)),
    `${s.test.queryMsP50.toFixed(1)} / ${s.test.queryMsP95.toFixed(1)}`,
  ];
  console.log(
    `Fusion variants on the MiniLM index (weights ${cache}); chosen on SciFact train, nDCG@10 and recall ×100:`,
  );
  printTable(
    [
      'variant',
      'train nDCG@10',
      'train, wrong dense',
      'train R@100',
      'test nDCG@10',
      'test R@10',
      'test R@100',
      'XQuAD de',
      'ru',
      'zh',
      'test ms p50 / p95',
    ],
    [...legs.map((s) => row(s)), ...tried.map((s) => row(s, s === chosen ? '  <- chosen' : ''))],
  );
  console.log(
    `\nchosen: ${chosen.variant.label} (the best train nDCG@10 among the variants within 1 point of lexical-only with a wrong dense leg)`,
  );

  console.log('\nThe int8 scan against the exact float scan over the same stored vectors (dense leg, 100 deep):');
  printTable(
    ['split', 'int8 nDCG@10', 'exact nDCG@10', 'loss', 'queries whose top 100 differ'],
    [await int8Loss(scifact, train, embedder, 'train'), await int8Loss(scifact, test, embedder, 'test')],
  );

  if (process.argv.includes('--fp32')) await fp32Rows(scifactDir, train, test, legs[1]);
  const jsonFile = arg('--json', '');
  if (jsonFile !== '') writeFileSync(jsonFile, JSON.stringify({ legs, tried, chosen: chosen.variant }, null, 2));
  await scifact.close();
  await scifactWrongDense.close();
  for (const { index } of xquad.values()) await index.close();
  await embedder.dispose();
}

/** Dense top 100 by the index's int8 scan (with its exact rescoring) and by the plain exact scan, scored alike. */
async function int8Loss(built: EvalIndex, judged: BeirDataset, embedder: Embedder, split: string): Promise<string[]> {
  const state = built.index.snapshots.current;
  if (state.kind !== 'ready') throw new Error('index not ready');
  const { snapshot } = state;
  // The index as loaded whole: one segment (docs/retrieval.md#snapshots).
  const { segment } = snapshot.segments.stateAt(0);
  const exact = exactScan(segment.matrix);
  const ranges = rangesFor(segment.matrix, undefined, undefined);
  const docsOf = (rows: readonly { chunkId: number }[]) => {
    const hits = snapshot.hitRows(rows.map((r) => r.chunkId));
    return hits.map((hit) => built.documentOf.get(hit.path) ?? '');
  };
  const int8Scores = [];
  const exactScores = [];
  let differing = 0;
  for (const [queryId, grades] of judged.judgments) {
    const vector = await embedder.embedQuery(judged.queries.get(queryId) ?? '');
    const a = segment.vectors.topK(vector, 100, ranges);
    const b = exact.topK(vector, 100, ranges);
    if (a.some((hit, i) => hit.chunkId !== b[i]?.chunkId)) differing += 1;
    int8Scores.push(scoreQuery(docsOf(a), grades));
    exactScores.push(scoreQuery(docsOf(b), grades));
  }
  const i8 = meanScores(int8Scores).ndcgAt10;
  const ex = meanScores(exactScores).ndcgAt10;
  return [
    `SciFact ${split} (${snapshot.vectorBackend})`,
    percent(i8),
    percent(ex),
    (100 * (ex - i8)).toFixed(2),
    String(differing),
  ];
}

/** Dense only with the fp32 weights (fetch-weights.js --fp32), beside the quantized weights' row. */
async function fp32Rows(
  scifactDir: string,
  train: BeirDataset,
  test: BeirDataset,
  q8: Scored | undefined,
): Promise<void> {
  if (!existsSync(FP32_MODEL_CACHE)) {
    console.log(`\n--fp32: ${FP32_MODEL_CACHE} is missing; run 'node bench/rag/dist/fetch-weights.js --fp32' first.`);
    return;
  }
  const embedder = await rememberingEmbedder(FP32_MODEL_CACHE);
  const built = await indexOf(scifactDir, 'scifact-minilm-fp32', embedder, FP32_MODEL_CACHE);
  const rows = [];
  for (const [name, judged] of [
    ['train', train],
    ['test', test],
  ] as const) {
    const fp32 = await scoreMode(built, judged, 'dense');
    const q8Report = name === 'train' ? q8?.train : q8?.test;
    rows.push([
      `SciFact ${name}`,
      percent(q8Report?.ndcgAt10 ?? 0),
      percent(fp32.ndcgAt10),
      percent(q8Report?.recallAt100 ?? 0),
      percent(fp32.recallAt100),
    ]);
  }
  console.log('\nDense only, quantized (q8) against fp32 weights of the same model:');
  printTable(['split', 'q8 nDCG@10', 'fp32 nDCG@10', 'q8 R@100', 'fp32 R@100'], rows);
  await built.close();
  await embedder.dispose();
}

await main();
