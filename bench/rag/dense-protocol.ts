/**
 * Checks the embedding pipeline (pooling, truncation at 256 word pieces,
 * normalisation) against the published all-MiniLM-L6-v2 number by measuring
 * it the way MTEB does: one vector per SciFact document (title, a space, the
 * text, truncated to the model's window), exact cosine over all documents,
 * 100 deep, no chunking. The product's dense leg chunks documents instead
 * (fusion-quality.js measures that one). Query and document vectors come from
 * the loader the indexer uses (`loadTransformersEmbedder`).
 *
 * Run: npx tsc -b && node bench/rag/dist/dense-protocol.js [--fp32]
 * (the weights: fetch-weights.js [--fp32])
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { findModel, loadBeirDataset, loadTransformersEmbedder, meanScores, scoreQuery } from '@notegate/rag';
import { benchModelCache, FP32_MODEL_CACHE, printTable, sharedDir } from './support.js';

const model = findModel('sentence-transformers/all-MiniLM-L6-v2');
if (!model) throw new Error('MiniLM is not whitelisted');
const BATCH = 16;
/** MTEB's published SciFact test numbers for all-MiniLM-L6-v2 (×100). */
const PUBLISHED = { ndcgAt10: 64.51, recallAt100: 92.5 };

async function measure(cache: string, label: string): Promise<string[][]> {
  if (!model) throw new Error('no model');
  const dir = path.join(sharedDir(), 'eval', 'scifact');
  const train = await loadBeirDataset(dir, 'train');
  const test = await loadBeirDataset(dir, 'test');
  const embedder = await loadTransformersEmbedder(model, cache);
  const texts = test.documents.map((d) => `${d.title} ${d.text}`.trim());
  const vectors: Float32Array[] = [];
  const started = performance.now();
  // Longest first, as the indexer batches: padding a batch to its longest text costs the least.
  const order = texts.map((_, i) => i).sort((a, b) => (texts[b]?.length ?? 0) - (texts[a]?.length ?? 0));
  for (let i = 0; i < order.length; i += BATCH) {
    const ids = order.slice(i, i + BATCH);
    const batch = await embedder.embedTexts(ids.map((id) => texts[id] ?? ''));
    ids.forEach((id, j) => {
      const v = batch[j];
      if (v) vectors[id] = v;
    });
  }
  process.stderr.write(
    `${label}: ${texts.length} documents embedded in ${((performance.now() - started) / 1000).toFixed(0)} s\n`,
  );
  const rows: string[][] = [];
  for (const [split, judged] of [
    ['test', test],
    ['train', train],
  ] as const) {
    const scores = [];
    for (const [queryId, grades] of judged.judgments) {
      const q = await embedder.embedQuery(judged.queries.get(queryId) ?? '');
      const ranked = vectors
        .map((v, i) => ({ i, s: v.reduce((sum, x, k) => sum + x * (q[k] ?? 0), 0) }))
        .sort((a, b) => b.s - a.s)
        .slice(0, 100)
        .map(({ i }) => test.documents[i]?.id ?? '');
      scores.push(scoreQuery(ranked, grades));
    }
    const mean = meanScores(scores);
    rows.push([
      `${label}, SciFact ${split}`,
      (100 * mean.ndcgAt10).toFixed(2),
      (100 * mean.recallAt10).toFixed(1),
      (100 * mean.recallAt100).toFixed(1),
    ]);
  }
  await embedder.dispose();
  return rows;
}

const rows = await measure(benchModelCache(), 'q8 weights (the installed model)');
if (process.argv.includes('--fp32')) {
  if (existsSync(FP32_MODEL_CACHE)) rows.push(...(await measure(FP32_MODEL_CACHE, 'fp32 weights')));
  else console.log(`--fp32: ${FP32_MODEL_CACHE} is missing; run 'node bench/rag/dist/fetch-weights.js --fp32' first.`);
}
rows.push(['published (MTEB), SciFact test', PUBLISHED.ndcgAt10.toFixed(2), '78.3', PUBLISHED.recallAt100.toFixed(1)]);
console.log('Dense only, one vector per document truncated to 256 word pieces (the MTEB protocol), exact cosine:');
printTable(['weights', 'nDCG@10', 'R@10', 'R@100'], rows);
