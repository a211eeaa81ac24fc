/**
 * Quality of the lexical leg on BEIR SciFact (5,183 abstracts, 300 test /
 * 809 train claims): the trigram exact phrase, the trigram tokenizer
 * with an OR of terms, and the unicode61 fallback's OR of terms, each both
 * as served (the bounded `lexicalLeg`, no dense candidates) and as an
 * unbounded FTS5 bm25 ranking; plus the title weight on train.
 * Metrics as in shared/eval/README.md: nDCG@10, Recall@10, Recall@100.
 *
 * Run: npx tsc -b && node bench/rag/dist/lexical-quality.js [--split test|train]
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { findModel, IndexSnapshot } from '@notegate/rag';
import {
  buildFtsQuery,
  COLUMN_WEIGHTS,
  type FtsTokenizer,
  ftsQueryOptions,
  IndexStore,
  type LexicalStrategy,
  lexicalLeg,
  lexicalSource,
} from '@notegate/rag/internals';
import Database from 'better-sqlite3';
import { arg, printTable, sharedDir, syntheticFile } from './support.js';

const MODEL = findModel('intfloat/multilingual-e5-small');
const DEPTH = 100;

interface Eval {
  readonly docs: readonly { id: string; title: string; text: string }[];
  readonly queries: ReadonlyMap<string, string>;
  readonly qrels: ReadonlyMap<string, ReadonlyMap<string, number>>;
}

function readEval(split: string): Eval {
  const dir = path.join(sharedDir(), 'eval', 'scifact');
  const lines = (file: string) => readFileSync(path.join(dir, file), 'utf8').trim().split(/\r?\n/);
  const docs = lines('corpus.jsonl').map((l) => {
    const d = JSON.parse(l);
    return { id: String(d._id), title: String(d.title), text: String(d.text) };
  });
  const queries = new Map(lines('queries.jsonl').map((l) => [String(JSON.parse(l)._id), String(JSON.parse(l).text)]));
  const qrels = new Map<string, Map<string, number>>();
  for (const line of lines(path.join('qrels', `${split}.tsv`)).slice(1)) {
    const [q = '', d = '', s = '0'] = line.split('\t');
    qrels.set(q, (qrels.get(q) ?? new Map()).set(d, Number(s)));
  }
  return { docs, queries, qrels };
}

function buildIndex(file: string, docs: Eval['docs'], tokenizer: 'auto' | 'unicode61'): void {
  if (!MODEL) throw new Error('model table lacks e5-small');
  const store = IndexStore.open(file, { model: MODEL, ftsTokenizer: tokenizer, nowMs: Date.now() });
  const vector = new Float32Array(MODEL.dimension).fill(1 / Math.sqrt(MODEL.dimension));
  for (const doc of docs) {
    store.replaceFile(
      syntheticFile('scifact', `${doc.id}.md`, '', doc.title),
      [{ seq: 0, heading: '', lineStart: 1, lineEnd: 1, text: doc.text, tokenCount: 0, vector }],
      0,
    );
  }
  store.finishRun('', '{}', Date.now());
  store.close();
}

/** Mean nDCG@10 (linear gains), Recall@10, Recall@100 over every judged query; a query without hits scores 0. */
function score(run: (query: string) => string[], data: Eval): string[] {
  let ndcg = 0;
  let r10 = 0;
  let r100 = 0;
  for (const [qid, judged] of data.qrels) {
    const ranked = run(data.queries.get(qid) ?? '');
    const dcg = ranked.slice(0, 10).reduce((sum, d, i) => sum + (judged.get(d) ?? 0) / Math.log2(i + 2), 0);
    const ideal = [...judged.values()].sort((a, b) => b - a).slice(0, 10);
    const idcg = ideal.reduce((sum, g, i) => sum + g / Math.log2(i + 2), 0);
    ndcg += idcg > 0 ? dcg / idcg : 0;
    r10 += ranked.slice(0, 10).filter((d) => judged.has(d)).length / judged.size;
    r100 += ranked.slice(0, 100).filter((d) => judged.has(d)).length / judged.size;
  }
  const n = data.qrels.size;
  return [(100 * ndcg) / n, (100 * r10) / n, (100 * r100) / n].map((x) => x.toFixed(1));
}

async function main(): Promise<void> {
  if (!MODEL) throw new Error('model table lacks e5-small');
  const split = arg('--split', 'test');
  const data = readEval(split);
  const dir = mkdtempSync(path.join(tmpdir(), 'notegate-lexical-quality-'));
  const rows: string[][] = [];
  try {
    for (const tokenizer of ['auto', 'unicode61'] as const) {
      const file = path.join(dir, `${tokenizer}.sqlite`);
      buildIndex(file, data.docs, tokenizer);
      const snapshot = await IndexSnapshot.open(file, MODEL, Date.now);
      const mode = snapshot.meta.ftsTokenizer;
      const docOf = new Map(
        snapshot
          .hitRows(Array.from(snapshot.vectors.matrix.chunkIds))
          .map((h) => [h.chunkId, h.path.replace(/\.md$/, '')]),
      );
      const source = lexicalSource(snapshot, snapshot.filter(undefined, undefined));
      const strategies: LexicalStrategy[] = mode === 'trigram' ? ['phrase', 'or-terms'] : ['or-terms'];
      for (const strategy of strategies) {
        const label = `${mode}, ${strategy === 'phrase' ? 'exact phrase' : 'OR of terms'}`;
        const served = (q: string) =>
          lexicalLeg(q, DEPTH, [], source, strategy).chunkIds.map((id) => docOf.get(id) ?? '');
        rows.push([label, 'as served (lexicalLeg, caps)', ...score(served, data)]);
        for (const title of strategy === 'or-terms' && split === 'train' ? [1, 2, 3, 5] : [COLUMN_WEIGHTS.title]) {
          const ranking = unbounded(file, mode, strategy, title, docOf);
          rows.push([label, `unbounded bm25, title weight ${title}`, ...score(ranking, data)]);
        }
      }
      snapshot.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`SciFact ${split} (${data.qrels.size} queries, ${data.docs.length} documents), lexical leg only:`);
  printTable(['index, query', 'ranking', 'nDCG@10', 'Recall@10', 'Recall@100'], rows);
}

function unbounded(
  file: string,
  mode: FtsTokenizer,
  strategy: LexicalStrategy,
  titleWeight: number,
  docOf: ReadonlyMap<number, string>,
): (query: string) => string[] {
  return (query) => {
    const built = buildFtsQuery(query, ftsQueryOptions(mode, strategy));
    if (built.kind !== 'match') return [];
    return rank(file, built.expression, titleWeight).map((id) => docOf.get(id) ?? '');
  };
}

const connections = new Map<string, Database.Database>();

function rank(file: string, expression: string, titleWeight: number): number[] {
  let db = connections.get(file);
  if (!db) {
    db = new Database(file, { readonly: true });
    connections.set(file, db);
  }
  return db
    .prepare(
      `SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY bm25(chunks_fts, ${titleWeight}, ${COLUMN_WEIGHTS.heading}, ${COLUMN_WEIGHTS.body}) LIMIT ${DEPTH}`,
    )
    .pluck()
    .all(expression)
    .map(Number);
}

await main();
