/**
 * Quality of the lexical leg, measured with `runEval` (what `notegate-rag eval`
 * runs: the real indexer into a throw-away lexical-only index, the server's
 * search, 100 hits deep, trec_eval metrics) on BEIR SciFact and on XQuAD in
 * German, Russian and Chinese; SciFact also in the fallback layout (no trigram
 * table) and indexed twice (two vaults holding the same notes: the ranking
 * must not move when the index grows). Beside the published SciFact numbers.
 * Goals (docs/retrieval.md#benchmarks): SciFact test nDCG@10 ≥ 69.0 and
 * Recall@100 ≥ 92; twice within 1 point of once; XQuAD ≥ 85 in each language;
 * indexing SciFact without a model under 60 s.
 *
 * Run: npx tsc -b && node bench/rag/dist/lexical-quality.js [--split test|train]
 * (the eval data: the shared folder, NOTEGATE_SHARED_DIR, else ../shared beside the repository)
 */
import path from 'node:path';
import { type EvalOptions, type EvalReport, NO_MODEL, noDownloads, runEval, type Split } from '@notegate/rag';
import { arg, printTable, sharedDir } from './support.js';

/** Published SciFact test numbers ×100 (shared/eval/README.md): nDCG@10, Recall@10, Recall@100. */
const PUBLISHED: readonly (readonly [string, string, string, string])[] = [
  ['BM25, bm25s (MTEB baseline)', '68.7', '81.9', '91.3'],
  ['BM25, Lucene (title + text)', '67.9', '–', '92.5'],
  ['multilingual-e5-small (dense)', '67.6', '80.7', '92.8'],
  ['all-MiniLM-L6-v2 (dense)', '64.5', '78.3', '92.5'],
];

async function lexical(datasetDir: string, split: Split, extra: Partial<EvalOptions> = {}): Promise<EvalReport> {
  return runEval({
    datasetDir,
    split,
    modes: ['lexical'],
    model: NO_MODEL,
    modelCacheDir: '',
    download: noDownloads(new URL('http://127.0.0.1:9/')),
    ...extra,
  });
}

function row(label: string, dataset: string, report: EvalReport): string[] {
  const m = report.modes[0];
  const percent = (x: number | undefined) => (100 * (x ?? 0)).toFixed(1);
  return [
    label,
    dataset,
    percent(m?.ndcgAt10),
    percent(m?.recallAt10),
    percent(m?.recallAt100),
    `${(report.indexMs / 1000).toFixed(1)} s (${report.chunks} chunks)`,
    `${m?.queryMsP50.toFixed(1)} / ${m?.queryMsP95.toFixed(1)} ms`,
    report.lexicalScoring,
  ];
}

async function main(): Promise<void> {
  const split = arg('--split', 'test') === 'train' ? 'train' : 'test';
  const evalDir = path.join(sharedDir(), 'eval');
  const scifact = path.join(evalDir, 'scifact');
  const rows: string[][] = [];
  rows.push(row('notegate lexical leg (default layout)', `SciFact ${split}`, await lexical(scifact, split)));
  rows.push(
    row(
      '… fallback layout (word table only)',
      `SciFact ${split}`,
      await lexical(scifact, split, { lexicalLayout: 'words' }),
    ),
  );
  rows.push(
    row('… the corpus indexed twice (2 vaults)', `SciFact ${split}`, await lexical(scifact, split, { copies: 2 })),
  );
  for (const language of ['de', 'ru', 'zh']) {
    const xquad = path.join(evalDir, 'xquad', language);
    rows.push(row('notegate lexical leg (default layout)', `XQuAD ${language}`, await lexical(xquad, 'test')));
  }
  // Without the full layout, a script written without spaces only matches whole runs.
  const zh = path.join(evalDir, 'xquad', 'zh');
  rows.push(
    row('… fallback layout (word table only)', 'XQuAD zh', await lexical(zh, 'test', { lexicalLayout: 'words' })),
  );
  console.log('Lexical leg, measured with runEval (no model: a lexical-only index), 100 hits deep:');
  printTable(
    ['system', 'dataset', 'nDCG@10', 'Recall@10', 'Recall@100', 'index (no model)', 'query p50 / p95', 'word tier'],
    rows,
  );
  console.log('\nPublished on SciFact test (not measured here):');
  printTable(
    ['system', 'nDCG@10', 'Recall@10', 'Recall@100'],
    PUBLISHED.map((p) => [...p]),
  );
}

await main();
