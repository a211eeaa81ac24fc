/**
 * Our lexical leg beside other BM25 implementations on SciFact test, in the
 * same run and scored by the same code (`scoreQuery`, trec_eval's
 * definitions): `bm25s` (PyPI), in a virtualenv this script creates under
 * BENCH_DIR, and Lucene BM25 through Anserini (Maven Central) when its fatjar
 * runs on the machine's JDK. nDCG@10, Recall@10/@100, index time, and query
 * latency (p50/p95 per query, one query at a time).
 *
 * Run: npx tsc -b && node bench/rag/dist/peers.js [--split test|train]
 * (needs python3 with venv; for Lucene, mvn and a JDK ≥ 11)
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadBeirDataset, meanScores, NO_MODEL, noDownloads, runEval, type Split, scoreQuery } from '@notegate/rag';
import { arg, BENCH_DIR, printTable, sharedDir, timings } from './support.js';

const BM25S = 'bm25s==0.3.16';
const PYSTEMMER = 'PyStemmer==3.1.0';
/** The last Anserini release on Java 11 (0.35.0 moved to JDK 21). */
const ANSERINI = 'io.anserini:anserini:0.25.0:jar:fatjar';
const MAVEN_DEPENDENCY_PLUGIN = 'org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy';

interface PeerRun {
  /** Query id → document ids, best first. */
  readonly rankings: Record<string, string[]>;
  readonly indexMs: number;
  readonly queryMs: readonly number[];
  readonly note: string;
}

function sh(command: string, args: readonly string[], options: { cwd?: string; input?: string } = {}) {
  const run = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 1 << 28, ...options });
  if (run.status !== 0)
    throw new Error(`${command} ${args.join(' ')} failed (${run.status}): ${run.stderr.slice(-2000)}`);
  return run.stdout;
}

/** bm25s with its English stop words and the Snowball English stemmer, as MTEB's baseline runs it; title + text. */
function bm25s(datasetDir: string, split: Split): PeerRun {
  const venv = path.join(BENCH_DIR, 'venv');
  const python = path.join(venv, 'bin', 'python');
  if (!existsSync(python)) sh('python3', ['-m', 'venv', venv]);
  sh(python, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', BM25S, PYSTEMMER]);
  const script = `
import json, sys, time, bm25s, Stemmer
d, split = sys.argv[1], sys.argv[2]
docs = [json.loads(l) for l in open(d + '/corpus.jsonl') if l.strip()]
queries = {q['_id']: q['text'] for q in (json.loads(l) for l in open(d + '/queries.jsonl') if l.strip())}
judged = []
for i, l in enumerate(open(d + '/qrels/' + split + '.tsv')):
    f = l.rstrip('\\r\\n').split('\\t')
    if i == 0 and not f[2].lstrip('-').isdigit(): continue
    if f[0] not in judged: judged.append(f[0])
stemmer = Stemmer.Stemmer('english')
t0 = time.perf_counter()
tokens = bm25s.tokenize([(x.get('title') or '') + ' ' + x['text'] for x in docs], stopwords='en', stemmer=stemmer, show_progress=False)
retriever = bm25s.BM25()
retriever.index(tokens, show_progress=False)
index_ms = (time.perf_counter() - t0) * 1000
rankings, query_ms = {}, []
for qid in judged:
    t = time.perf_counter()
    q = bm25s.tokenize([queries[qid]], stopwords='en', stemmer=stemmer, show_progress=False)
    ids, scores = retriever.retrieve(q, k=100, show_progress=False)
    query_ms.append((time.perf_counter() - t) * 1000)
    rankings[qid] = [docs[int(i)]['_id'] for i in ids[0]]
print(json.dumps({'rankings': rankings, 'index_ms': index_ms, 'query_ms': query_ms, 'version': bm25s.__version__}))
`;
  const out = JSON.parse(sh(python, ['-c', script, datasetDir, split]));
  return {
    rankings: out.rankings,
    indexMs: out.index_ms,
    queryMs: out.query_ms,
    note: `bm25s ${out.version}, English stop words, Snowball stemmer, title + text`,
  };
}

/** Lucene BM25 (k1 0.9, b 0.4, Anserini's defaults) over BEIR's flat layout (title + text), one thread. */
function anserini(datasetDir: string, split: Split, judgedIds: readonly string[]): PeerRun | string {
  const jarsDir = path.join(BENCH_DIR, 'maven');
  const jar = path.join(jarsDir, 'anserini-0.25.0-fatjar.jar');
  if (!existsSync(jar)) {
    const copy = spawnSync(
      'mvn',
      ['-q', MAVEN_DEPENDENCY_PLUGIN, `-Dartifact=${ANSERINI}`, `-DoutputDirectory=${jarsDir}`],
      { encoding: 'utf8' },
    );
    if (copy.status !== 0) return `mvn could not copy ${ANSERINI}`;
  }
  const work = path.join(BENCH_DIR, 'anserini', split);
  const input = path.join(work, 'corpus');
  mkdirSync(input, { recursive: true });
  writeFileSync(path.join(input, 'corpus.jsonl'), readFileSync(path.join(datasetDir, 'corpus.jsonl')));
  const queries = new Map(
    readFileSync(path.join(datasetDir, 'queries.jsonl'), 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => {
        const q = JSON.parse(line);
        return [String(q._id), String(q.text)] as const;
      }),
  );
  const java = (main: string, args: readonly string[]) =>
    spawnSync('java', ['-cp', jar, main, ...args], { encoding: 'utf8', maxBuffer: 1 << 28 });
  const started = performance.now();
  const indexed = java('io.anserini.index.IndexCollection', [
    '-collection',
    'BeirFlatCollection',
    '-input',
    input,
    '-index',
    path.join(work, 'index'),
    '-generator',
    'DefaultLuceneDocumentGenerator',
    '-threads',
    '1',
    '-storePositions',
    '-storeDocvectors',
    '-storeRaw',
  ]);
  const indexMs = performance.now() - started;
  if (indexed.status !== 0)
    return `Anserini 0.25.0 did not index on this JDK: ${indexed.stderr.split('\n').slice(0, 3).join(' ')}`;
  // One process for all queries (its start-up is not a query's cost): the run's wall time over the query count.
  const topics = path.join(work, 'topics.tsv');
  writeFileSync(topics, judgedIds.map((id) => `${id}\t${(queries.get(id) ?? '').replace(/\s+/g, ' ')}`).join('\n'));
  const run = path.join(work, 'run.txt');
  const searchStarted = performance.now();
  const searched = java('io.anserini.search.SearchCollection', [
    '-index',
    path.join(work, 'index'),
    '-topics',
    topics,
    '-topicReader',
    'TsvString',
    '-output',
    run,
    '-bm25',
    '-removeQuery',
    '-hits',
    '101',
    '-threads',
    '1',
  ]);
  const searchMs = performance.now() - searchStarted;
  if (searched.status !== 0)
    return `Anserini 0.25.0 did not search: ${searched.stderr.split('\n').slice(0, 3).join(' ')}`;
  const rankings: Record<string, string[]> = {};
  for (const line of readFileSync(run, 'utf8').split('\n')) {
    const [qid, , docid] = line.split(/\s+/);
    if (qid && docid) rankings[qid] = [...(rankings[qid] ?? []), docid];
  }
  const perQuery = searchMs / Math.max(1, judgedIds.length);
  return {
    rankings,
    indexMs,
    queryMs: judgedIds.map(() => perQuery),
    note: 'Anserini 0.25.0 (Lucene 9), BM25 k1 0.9 b 0.4, title + text; index time includes the JVM start; query time is the batch run (JVM start included) over the query count, so no p95',
  };
}

async function main(): Promise<void> {
  const split: Split = arg('--split', 'test') === 'train' ? 'train' : 'test';
  const datasetDir = path.join(sharedDir(), 'eval', 'scifact');
  const dataset = await loadBeirDataset(datasetDir, split);
  const judgedIds = [...dataset.judgments.keys()];
  const rows: string[][] = [];
  const percent = (x: number) => (100 * x).toFixed(1);
  const ours = await runEval({
    datasetDir,
    split,
    modes: ['lexical'],
    model: NO_MODEL,
    modelCacheDir: '',
    download: noDownloads(new URL('http://127.0.0.1:9/')),
  });
  const lexical = ours.modes[0];
  if (lexical) {
    rows.push([
      'notegate lexical leg (FTS5 BM25, lexical-only index)',
      percent(lexical.ndcgAt10),
      percent(lexical.recallAt10),
      percent(lexical.recallAt100),
      `${(ours.indexMs / 1000).toFixed(1)} s`,
      `${lexical.queryMsP50.toFixed(2)} / ${lexical.queryMsP95.toFixed(2)} ms`,
      'index time: writing the notes, chunking, FTS5 tables, the word index',
    ]);
  }
  const peerRow = (label: string, peer: PeerRun | string) => {
    if (typeof peer === 'string') {
      rows.push([label, '–', '–', '–', '–', '–', peer]);
      return;
    }
    const scores = meanScores(
      judgedIds.map((id) => scoreQuery(peer.rankings[id] ?? [], dataset.judgments.get(id) ?? new Map())),
    );
    const t = timings(peer.queryMs);
    rows.push([
      label,
      percent(scores.ndcgAt10),
      percent(scores.recallAt10),
      percent(scores.recallAt100),
      `${(peer.indexMs / 1000).toFixed(1)} s`,
      `${t.medianMs.toFixed(2)} / ${t.p95Ms.toFixed(2)} ms`,
      peer.note,
    ]);
  };
  peerRow('bm25s (PyPI)', bm25s(datasetDir, split));
  peerRow('Lucene BM25 via Anserini (Maven Central)', anserini(datasetDir, split, judgedIds));
  console.log(`BM25 implementations on SciFact ${split} (${judgedIds.length} queries), same run, same scoring code:`);
  printTable(['system', 'nDCG@10', 'R@10', 'R@100', 'index', 'query p50 / p95', 'notes'], rows);
}

await main();
