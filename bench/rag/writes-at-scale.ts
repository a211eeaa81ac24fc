/**
 * Writes at scale (docs/retrieval.md#benchmarks): an index of N chunks (SciFact
 * sentences and synthetic vectors, the real write path) followed by a server
 * process while a writer process commits one note a second, as a separate
 * `notegate-rag index` run would, and searches run without pause. With
 * `--before DIR` (another built checkout: the full rebuild of each new
 * generation) both run in the same run, each with its own copy of the index,
 * the searches and writes interleaved between the two.
 *
 * Measured in each server process: the ranking step of each search (lexical,
 * hybrid; no query embedding), where the word tier was ranked (memory or
 * SQLite), the time from a write's commit to the first snapshot that finds
 * the note; after the timed writes, the rest of an hour's writes (3,600 in
 * all) at a faster rate, then the RSS (after a full GC) against that of a
 * fresh process loading the same final index, once loaded and again after
 * it has served each query once in each mode. Writes: two of three are new
 * notes of 3 chunks, one of three rewrites an existing note (its 10 chunks
 * deleted, 3 added).
 *
 * Run: npx tsc -b && node bench/rag/dist/writes-at-scale.js [--before DIR] [--chunks 100000]
 *      [--text sentences|words] [--seconds 60] [--hour-writes 3600] [--hour-rate 20] [--keep-index]
 * (SciFact: NOTEGATE_SHARED_DIR, else ../shared beside the repository; `--text words`: a dozen words a
 * chunk, for a million chunks where the vector side is what is measured)
 */
import { type ChildProcess, fork } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { seededRandom } from '@notegate/kit/testing';
import { findModel } from '@notegate/rag';
import { IndexStore, openDatabase } from '@notegate/rag/internals';
import { CENTRES, ChunkSource, type ChunkText, near, readCorpus, writeIndex } from './scifact-index.js';
import { arg, mib, printTable, syntheticFile, timings, unitVector, vaultOf } from './support.js';
import type { ChildReply, ChildRequest, ServerStats } from './writes-at-scale-child.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const THIS_CHECKOUT = path.resolve(HERE, '..', '..', '..');
const MODEL = findModel('intfloat/multilingual-e5-small');
/** Generous: a full rebuild of a large index may keep a server's event loop busy for a while. */
const ASK_TIMEOUT_MS = 300_000;

class Child {
  private readonly replies: { resolve: (reply: ChildReply) => void; reject: (err: Error) => void }[] = [];
  private constructor(private readonly process: ChildProcess) {
    process.on('message', (reply: ChildReply) => {
      const waiting = this.replies.shift();
      if (reply.kind === 'failed') waiting?.reject(new Error(`a child failed: ${reply.message}`));
      else waiting?.resolve(reply);
    });
    process.once('exit', (code) => {
      for (const waiting of this.replies.splice(0)) waiting.reject(new Error(`a child exited (${code})`));
    });
  }

  /** Starts a role of writes-at-scale-child.js over `root`'s library; resolves once it is ready. */
  static async start(
    role: 'server' | 'writer',
    root: string,
    file: string,
  ): Promise<{ child: Child; ready: ChildReply }> {
    const script = path.join(HERE, 'writes-at-scale-child.js');
    const child = new Child(
      fork(script, [role, root, file], { serialization: 'advanced', execArgv: ['--expose-gc'], stdio: 'inherit' }),
    );
    const ready = await child.next();
    return { child, ready };
  }

  /** Sends a request and waits for its answer, at most ASK_TIMEOUT_MS (a child that stops answering fails the run). */
  async ask(request: ChildRequest): Promise<ChildReply> {
    this.process.send(request);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no answer to ${request.kind} in ${ASK_TIMEOUT_MS} ms`)),
        ASK_TIMEOUT_MS,
      );
    });
    try {
      return await Promise.race([this.next(), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  tell(request: ChildRequest): void {
    this.process.send(request);
  }

  async close(): Promise<void> {
    const exited = new Promise((resolve) => this.process.once('exit', resolve));
    this.process.send({ kind: 'close' } satisfies ChildRequest);
    await exited;
  }

  private next(): Promise<ChildReply> {
    return new Promise((resolve, reject) => this.replies.push({ resolve, reject }));
  }
}

interface Variant {
  readonly label: string;
  readonly root: string;
  readonly file: string;
  readonly server: Child;
  readonly writer: Child;
  readonly loadMs: number;
  /** Ranking times by phase: `quiet` (no writes, before them), `timed` (a write a second), and all of them. */
  readonly samples: {
    lexical: number[];
    hybrid: number[];
    quietLexical: number[];
    quietHybrid: number[];
    timedLexical: number[];
    timedHybrid: number[];
    dense: number[];
  };
  readonly scoring: Map<string, number>;
}

/** The index of this checkout's format, built once per size and text and kept beside the temporary folder. */
function baseIndex(chunks: number, text: ChunkText, source: ChunkSource): string {
  if (!MODEL) throw new Error('model table lacks e5-small');
  const dir = path.join(tmpdir(), 'notegate-writes-at-scale');
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `index-${chunks}-${text}.sqlite`);
  if (existsSync(file)) {
    // Opened as a writer: an index built by an earlier version is upgraded in place (docs/retrieval.md#index-format).
    IndexStore.open(file, { model: MODEL, nowMs: Date.now() }).close();
    console.log(`reusing ${file}`);
    return file;
  }
  const started = performance.now();
  const store = IndexStore.open(`${file}.building`, { model: MODEL, nowMs: Date.now() });
  writeIndex(store, chunks, source);
  store.finishRun('', '{}', Date.now());
  store.close();
  const db = openDatabase(`${file}.building`);
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  copyFileSync(`${file}.building`, file);
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}.building${suffix}`, { force: true });
  console.log(`built ${chunks} chunks in ${((performance.now() - started) / 1000).toFixed(0)} s: ${file}`);
  return file;
}

/**
 * The index in the format the checkout at `root` reads: formats 2 and 3 have
 * this one's tables without the change log, and told their readers of changes
 * by a fresh `vectors_generation` in meta (docs/retrieval.md#index-format).
 */
async function toFormatOf(root: string, file: string): Promise<void> {
  const schema: unknown = await import(pathToFileURL(path.join(root, 'rag/dist/src/store/schema.js')).href);
  const version = typeof schema === 'object' && schema !== null ? Reflect.get(schema, 'SCHEMA_VERSION') : undefined;
  if (version === 4) return;
  if (version !== 2 && version !== 3) throw new Error(`${root} reads index format ${String(version)}`);
  const db = openDatabase(file);
  db.exec(`DROP TRIGGER chunk_changes_added; DROP TRIGGER chunk_changes_removed; DROP TABLE chunk_changes;
    DELETE FROM meta WHERE key IN ('change_log_id', 'change_log_pruned_through');
    INSERT INTO meta (key, value) VALUES ('vectors_generation', 'bench');
    UPDATE meta SET value = '${version}' WHERE key = 'schema_version';
    PRAGMA user_version = ${version};`);
  db.close();
}

async function startVariant(label: string, root: string, base: string, work: string): Promise<Variant> {
  const file = path.join(work, `${label}.sqlite`);
  copyFileSync(base, file);
  if (label === 'before') await toFormatOf(root, file);
  const { child: server, ready } = await Child.start('server', root, file);
  const { child: writer } = await Child.start('writer', root, file);
  const loadMs = ready.kind === 'ready' ? ready.loadMs : Number.NaN;
  console.log(`${label}: first snapshot with its word index in ${(loadMs / 1000).toFixed(1)} s`);
  const samples = {
    lexical: [],
    hybrid: [],
    quietLexical: [],
    quietHybrid: [],
    timedLexical: [],
    timedHybrid: [],
    dense: [],
  };
  return { label, root, file, server, writer, loadMs, samples, scoring: new Map() };
}

async function main(): Promise<void> {
  if (!MODEL) throw new Error('model table lacks e5-small');
  const chunks = Number(arg('--chunks', '100000'));
  const text = arg('--text', 'sentences') === 'words' ? 'words' : 'sentences';
  const seconds = Number(arg('--seconds', '60'));
  const hourWrites = Number(arg('--hour-writes', '3600'));
  const hourRate = Number(arg('--hour-rate', '20'));
  const beforeAt = process.argv.indexOf('--before');
  const before = beforeAt === -1 ? undefined : path.resolve(process.argv[beforeAt + 1] ?? '');
  const corpus = readCorpus();
  const random = seededRandom(42);
  const centres = Array.from({ length: CENTRES }, () => unitVector(random, MODEL.dimension));
  const source = new ChunkSource(corpus, random, centres, text);
  const base = baseIndex(chunks, text, source);
  const work = path.join(tmpdir(), `notegate-writes-at-scale-run-${process.pid}`);
  mkdirSync(work, { recursive: true });
  const loads: number[] = [loadavg()[0] ?? 0];
  const sampler = setInterval(() => loads.push(loadavg()[0] ?? 0), 5_000);
  try {
    const roots = before
      ? ([
          ['before', before],
          ['after', THIS_CHECKOUT],
        ] as const)
      : ([['after', THIS_CHECKOUT]] as const);
    const variants: Variant[] = [];
    for (const [label, root] of roots) variants.push(await startVariant(label, root, base, work));
    const queries = Array.from({ length: 60 }, (_, i) =>
      i % 2 === 0 ? (corpus.claims[i * 7] ?? 'cell') : (corpus.words[i % corpus.words.length] ?? 'cell'),
    );
    const vectors = queries.map(() => near(source.pick(centres), random));
    const files = Math.ceil(chunks / 10);
    let written = 0;
    const timedTokens = new Set<string>();
    /** Note `n`: two of three new, one of three an existing note rewritten; its first chunk holds a unique token. */
    const write = async () => {
      const n = written++;
      const token = `zephyr${n}quill`;
      if (n < seconds) timedTokens.add(token);
      const f = n % 3 === 2 ? (n * 7919) % files : files + n;
      const record = syntheticFile(vaultOf(f), `ns${f % 10}/note-${f}.md`, `ns${f % 10}`, source.title());
      const noteChunks = source.chunks(3, ` ${token}`);
      for (const variant of n % 2 === 0 ? variants : [...variants].reverse()) {
        const reply = await variant.writer.ask({ kind: 'write', record, chunks: noteChunks });
        // Only the timed writes are looked for: each new snapshot is searched for every note still missing.
        if (reply.kind === 'written' && n < seconds) {
          variant.server.tell({ kind: 'expect', token, ackAtMs: reply.ackAtMs });
        }
      }
    };
    let i = 0;
    type Phase = 'warm-up' | 'quiet' | 'timed' | 'other';
    const search = async (phase: Phase) => {
      const mode = i % 2 === 0 ? 'lexical' : 'hybrid';
      const q = Math.floor(i / 2) % queries.length;
      for (const variant of i % 4 < 2 ? variants : [...variants].reverse()) {
        const reply = await variant.server.ask({
          kind: 'search',
          query: queries[q] ?? '',
          vector: vectors[q] ?? new Float32Array(),
          mode,
        });
        if (reply.kind !== 'searched') continue;
        const list = mode === 'lexical' ? variant.samples.lexical : variant.samples.hybrid;
        list.push(reply.ms);
        const { samples } = variant;
        if (phase === 'timed') (mode === 'lexical' ? samples.timedLexical : samples.timedHybrid).push(reply.ms);
        if (phase === 'quiet') (mode === 'lexical' ? samples.quietLexical : samples.quietHybrid).push(reply.ms);
        variant.scoring.set(reply.scoring, (variant.scoring.get(reply.scoring) ?? 0) + 1);
      }
      i += 1;
    };
    const searchDense = async () => {
      const vector = vectors[Math.floor(i / 2) % vectors.length] ?? new Float32Array();
      for (const variant of variants) {
        const reply = await variant.server.ask({ kind: 'search', query: '', vector, mode: 'dense' });
        if (reply.kind === 'searched') variant.samples.dense.push(reply.ms);
      }
    };
    // Warm up; the same searches as long without writes (what the writes' cost is measured against), with
    // the dense leg alone timed too; then the timed part: a write a second, searches without pause.
    for (let k = 0; k < 40; k += 1) await search('warm-up');
    const quietUntil = performance.now() + seconds * 1000;
    while (performance.now() < quietUntil) {
      await search('quiet');
      if (i % 8 === 0) await searchDense();
    }
    const startedAt = performance.now();
    for (let second = 0; second < seconds; second += 1) {
      await write();
      while (performance.now() < startedAt + (second + 1) * 1000) await search('timed');
    }
    // The timed part's table now (the hour's writes take a while on a loaded machine), once the last
    // writes had the time to become searchable in both.
    const settled = performance.now() + 10_000;
    while (performance.now() < settled) await search('other');
    const rows: string[][] = [];
    for (const variant of variants) {
      const stats = await statsOf(variant.server);
      const total = [...variant.scoring.values()].reduce((sum, n) => sum + n, 0);
      const { samples } = variant;
      const timedOf = (byToken: Readonly<Record<string, number>>) =>
        Object.entries(byToken).flatMap(([token, ms]) => (timedTokens.has(token) ? [ms] : []));
      rows.push([
        variant.label,
        pair(samples.quietLexical),
        pair(samples.timedLexical),
        ratio(samples.timedLexical, samples.quietLexical),
        pair(samples.quietHybrid),
        pair(samples.timedHybrid),
        ratio(samples.timedHybrid, samples.quietHybrid),
        samples.dense.length > 0 ? pair(samples.dense) : '–',
        triple(timedOf(stats.searchableMs)),
        triple(timedOf(stats.loadedMs)),
        `${variant.scoring.get('sqlite') ?? 0} of ${total}`,
        String([...timedTokens].filter((token) => stats.searchableMs[token] === undefined).length),
        Object.entries(stats.loads)
          .map(([kind, n]) => `${kind} ${n}`)
          .join(', '),
      ]);
    }
    console.log(
      `\n${chunks} chunks (${text}), ${seconds} s of searches without writes, then a write a second for ${seconds} s, searches without pause (in ms, ranking step alone, p50 / p95; ratio: with writes / without):`,
    );
    printTable(
      [
        'variant',
        'lexical, no writes',
        'lexical, writes',
        'ratio',
        'hybrid, no writes',
        'hybrid, writes',
        'ratio',
        'dense leg alone, no writes',
        'write → searchable p50 / p95 / max',
        'write → snapshot loaded',
        'ranked in SQLite',
        'never found',
        'loads',
      ],
      rows,
    );
    // The rest of the hour's writes, faster, searches going on between them.
    const hourStarted = performance.now();
    for (let k = 0; written < hourWrites; k += 1) {
      await write();
      if (written % 600 === 0) {
        // RSS over the writes (after a full GC): how it drifts, not only where it ends.
        const rss = [];
        for (const variant of variants) {
          const stats = await statsOf(variant.server);
          rss.push(
            `${variant.label} ${mib(stats.rssBytes)} (anonymous ${mib(stats.anonBytes)}; heap ${mib(stats.heapBytes)}, segments ${stats.segments} of ${mib(stats.segmentBytes)})`,
          );
        }
        const elapsedS = ((performance.now() - hourStarted) / 1000).toFixed(0);
        console.log(`after ${written} writes (${elapsedS} s of the faster part): RSS ${rss.join(', ')}`);
      }
      while (performance.now() < hourStarted + ((k + 1) * 1000) / hourRate) await search('other');
    }
    for (let k = 0; k < 20; k += 1) await search('other');
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const memory: string[][] = [];
    for (const variant of variants) {
      const stats = await statsOf(variant.server);
      await variant.server.close();
      await variant.writer.close();
      const fresh = await Child.start('server', variant.root, variant.file);
      const freshStats = await statsOf(fresh.child);
      // A server's RSS includes the index file's pages that its searches have mapped in: the fresh
      // process is measured again once it has served each query of the run in each mode.
      for (const [q, query] of queries.entries()) {
        for (const mode of ['lexical', 'hybrid', 'dense'] as const) {
          await fresh.child.ask({ kind: 'search', query, vector: vectors[q] ?? new Float32Array(), mode });
        }
      }
      const servedStats = await statsOf(fresh.child);
      await fresh.child.close();
      const times = (a: number, b: number) => (a / b).toFixed(2);
      memory.push([
        variant.label,
        mib(stats.rssBytes),
        `${mib(freshStats.rssBytes)}, ${mib(servedStats.rssBytes)}`,
        `${times(stats.rssBytes, freshStats.rssBytes)}, ${times(stats.rssBytes, servedStats.rssBytes)}`,
        `${mib(stats.anonBytes)} / ${mib(freshStats.anonBytes)}, ${mib(servedStats.anonBytes)} = ${times(stats.anonBytes, freshStats.anonBytes)}, ${times(stats.anonBytes, servedStats.anonBytes)}`,
        stats.segments > 0
          ? `${stats.segments}, ${mib(stats.segmentBytes)} (fresh ${mib(freshStats.segmentBytes)})`
          : '–',
        String(stats.merges),
        `${variant.scoring.get('sqlite') ?? 0} of ${[...variant.scoring.values()].reduce((sum, n) => sum + n, 0)}`,
        String(stats.notFound),
      ]);
    }
    clearInterval(sampler);
    console.log(`\nAfter ${written} writes (${seconds} at one a second, the rest at ${hourRate} a second):`);
    printTable(
      [
        'variant',
        'RSS',
        'RSS of a fresh process: loaded, after one round of the searches',
        'ratios',
        'anonymous RSS: run / fresh loaded, after the searches = ratios',
        'segments, bytes',
        'merges',
        'ranked in SQLite',
        'never found',
      ],
      memory,
    );
    console.log(
      `\nload average (1 min) during the run: ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)} on ${2} cores shared with other work`,
    );
  } finally {
    clearInterval(sampler);
    rmSync(work, { recursive: true, force: true });
  }
}

async function statsOf(child: Child): Promise<ServerStats> {
  const reply = await child.ask({ kind: 'stats' });
  if (reply.kind !== 'stats') throw new Error(`stats: ${reply.kind}`);
  return reply.stats;
}

function pair(samples: readonly number[]): string {
  const t = timings(samples);
  return `${t.medianMs.toFixed(1)} / ${t.p95Ms.toFixed(1)}`;
}

/** p50 and p95 of `samples` over those of `baseline`. */
function ratio(samples: readonly number[], baseline: readonly number[]): string {
  if (samples.length === 0 || baseline.length === 0) return '–';
  const t = timings(samples);
  const b = timings(baseline);
  return `${(t.medianMs / b.medianMs).toFixed(2)} / ${(t.p95Ms / b.p95Ms).toFixed(2)}`;
}

function triple(samples: readonly number[]): string {
  if (samples.length === 0) return '–';
  const t = timings(samples);
  return `${t.medianMs.toFixed(0)} / ${t.p95Ms.toFixed(0)} / ${Math.max(...samples).toFixed(0)}`;
}

await main();
