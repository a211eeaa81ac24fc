/**
 * A process of writes-at-scale.ts, running one checkout's `@notegate/rag`
 * (this one, or the one before, given by its root folder):
 * - `server ROOT INDEX`: follows the index as `notegate-rag serve` does (its
 *   SnapshotSource, a change check before each search) and runs the searches
 *   it is sent, timing the ranking step alone (no query embedding, no IPC);
 *   it finds each written note once it is searchable, and reports memory;
 * - `writer ROOT INDEX`: commits the notes it is sent through the real write
 *   path (IndexStore.replaceFile), as a separate `notegate-rag index` run would.
 * Messages come over the IPC channel (advanced serialization: typed arrays).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { FileRecord, StoredChunk } from '@notegate/rag/internals';

export type ChildRequest =
  | {
      readonly kind: 'search';
      readonly query: string;
      readonly vector: Float32Array;
      /** `dense`: the dense leg alone, every segment's exact nearest rows (a checkout without segments: none). */
      readonly mode: 'lexical' | 'hybrid' | 'dense';
    }
  | { readonly kind: 'expect'; readonly token: string; readonly ackAtMs: number }
  | { readonly kind: 'write'; readonly record: FileRecord; readonly chunks: StoredChunk[] }
  | { readonly kind: 'stats' }
  | { readonly kind: 'close' };

export type ChildReply =
  | { readonly kind: 'ready'; readonly loadMs: number; readonly chunks: number }
  | { readonly kind: 'searched'; readonly ms: number; readonly scoring: string }
  | { readonly kind: 'written'; readonly ackAtMs: number }
  | { readonly kind: 'stats'; readonly stats: ServerStats }
  | { readonly kind: 'failed'; readonly message: string };

export interface ServerStats {
  /** Write acknowledged → first snapshot that finds the note, by the note's token. */
  readonly searchableMs: Readonly<Record<string, number>>;
  /**
   * Write acknowledged → that snapshot loaded (its own clock, whole ms; absent in a checkout that does
   * not say): the rest of searchableMs is the wait for the search in flight to end before it is probed.
   */
  readonly loadedMs: Readonly<Record<string, number>>;
  readonly notFound: number;
  /** Loads of a new snapshot, by how (`whole`, `changes`, `same`; `reload` for a checkout that does not say). */
  readonly loads: Readonly<Record<string, number>>;
  readonly merges: number;
  readonly rssBytes: number;
  /** The resident memory that is not the index file's pages mapped in (SQLite reads it memory-mapped): Linux's RssAnon. */
  readonly anonBytes: number;
  readonly heapBytes: number;
  /** Bytes of the in-memory segments, and how many (a checkout without segments: 0). */
  readonly segmentBytes: number;
  readonly segments: number;
}

/** The part of a checkout's library these processes use (the same in the checkout before). */
interface Library {
  findModel(id: string): unknown;
  SnapshotSource: new (options: Record<string, unknown>) => Source;
  searchSnapshot(snapshot: unknown, vector: Float32Array | undefined, options: Record<string, unknown>): SearchResult;
}

interface Source {
  start(): Promise<void>;
  check(): void;
  refresh(): Promise<void>;
  close(): Promise<void>;
  readonly current: { readonly kind: string; readonly snapshot?: Snapshot };
}

interface Snapshot {
  readonly chunks: number;
  readonly lexical: { readonly scoring: string };
  readonly segments?: {
    readonly states: readonly { readonly segment: { readonly byteLength: number; readonly rowCount: number } }[];
    nearest(
      query: Float32Array,
      k: number,
      rangesOf: (segment: { readonly rowCount: number }) => [number, number][],
    ): unknown;
  };
  readonly loadedAtMs?: number;
  wordIndexSettled?(): Promise<void>;
}

interface SearchResult {
  readonly hits: readonly { readonly text: string }[];
  readonly wordScoring?: string;
}

interface Store {
  replaceFile(record: FileRecord, chunks: readonly StoredChunk[], atMs: number): void;
  close(): void;
}

/** The fusion's depth of candidates per leg (docs/retrieval.md#fusion): what the dense leg of a hybrid search asks for. */
const HYBRID_DEPTH = 200;
const nowMs = () => performance.timeOrigin + performance.now();
const send = (reply: ChildReply) => process.send?.(reply);

async function load(root: string): Promise<{ library: Library; openStore: (file: string, model: unknown) => Store }> {
  const main: unknown = await import(pathToFileURL(path.join(root, 'rag/dist/src/index.js')).href);
  const internals: unknown = await import(pathToFileURL(path.join(root, 'rag/dist/src/internals.js')).href);
  const field = (module: unknown, name: string): unknown =>
    typeof module === 'object' && module !== null ? Reflect.get(module, name) : undefined;
  for (const name of ['findModel', 'SnapshotSource', 'searchSnapshot']) {
    if (typeof field(main, name) !== 'function') throw new Error(`${root}: @notegate/rag has no ${name}`);
  }
  const store = field(internals, 'IndexStore');
  const open = typeof store === 'function' ? Reflect.get(store, 'open') : undefined;
  if (typeof open !== 'function') throw new Error(`${root}: no IndexStore.open`);
  return {
    library: main as Library,
    openStore: (file, model) => Reflect.apply(open, store, [file, { model, nowMs: Date.now() }]) as Store,
  };
}

function current(source: Source): Snapshot {
  const state = source.current;
  if (state.kind !== 'ready' || state.snapshot === undefined) throw new Error(`the index is ${state.kind}`);
  return state.snapshot;
}

async function server(root: string, file: string): Promise<void> {
  const { library } = await load(root);
  const model = library.findModel('intfloat/multilingual-e5-small');
  const loads: Record<string, number> = {};
  let merges = 0;
  const source = new library.SnapshotSource({
    indexPath: file,
    model,
    onReload: (event: { load?: { kind: string } }) => {
      const kind = event.load?.kind ?? 'reload';
      loads[kind] = (loads[kind] ?? 0) + 1;
    },
    onMerge: (event: { kind: string }) => {
      if (event.kind === 'merged') merges += 1;
    },
  });
  const started = performance.now();
  await source.start();
  await current(source).wordIndexSettled?.();
  send({ kind: 'ready', loadMs: performance.now() - started, chunks: current(source).chunks });
  const pending = new Map<string, number>();
  const searchableMs: Record<string, number> = {};
  const loadedMs: Record<string, number> = {};
  /** The snapshot last looked in, while notes are awaited: held no longer, or the segments it shares would outlive their merge. */
  let probed: Snapshot | undefined;
  const options = (query: string, mode: string) => ({
    query,
    top: 8,
    vaults: undefined,
    namespaces: undefined,
    mode,
    mmr: false,
    mmrLambda: 0.7,
  });
  /** Looks for the written notes in each new snapshot, once. */
  const probe = () => {
    const snapshot = source.current.snapshot;
    if (snapshot === undefined || snapshot === probed || pending.size === 0) return;
    probed = snapshot;
    for (const [token, ackAtMs] of pending) {
      const found = library.searchSnapshot(snapshot, undefined, options(token, 'lexical'));
      if (!found.hits.some((hit) => hit.text.includes(token))) continue;
      searchableMs[token] = nowMs() - ackAtMs;
      if (snapshot.loadedAtMs !== undefined) loadedMs[token] = snapshot.loadedAtMs - ackAtMs;
      pending.delete(token);
    }
    if (pending.size === 0) probed = undefined;
  };
  const timer = setInterval(() => {
    source.check();
    probe();
  }, 10);
  process.on('message', (request: ChildRequest) => answer(() => serve(request)));
  const serve = async (request: ChildRequest) => {
    if (request.kind === 'search') {
      source.check();
      const snapshot = current(source);
      const begun = performance.now();
      if (request.mode === 'dense') {
        snapshot.segments?.nearest(request.vector, HYBRID_DEPTH, (segment) => [[0, segment.rowCount]]);
        send({ kind: 'searched', ms: performance.now() - begun, scoring: 'none' });
        return;
      }
      const result = library.searchSnapshot(snapshot, request.vector, options(request.query, request.mode));
      const ms = performance.now() - begun;
      send({ kind: 'searched', ms, scoring: result.wordScoring ?? snapshot.lexical.scoring });
      probe();
    } else if (request.kind === 'expect') {
      pending.set(request.token, request.ackAtMs);
      probed = undefined;
      probe();
    } else if (request.kind === 'stats') {
      const gc = Reflect.get(globalThis, 'gc');
      for (let i = 0; i < 3; i += 1) if (typeof gc === 'function') gc();
      const states = current(source).segments?.states ?? [];
      const memory = process.memoryUsage();
      send({
        kind: 'stats',
        stats: {
          searchableMs,
          loadedMs,
          notFound: pending.size,
          loads,
          merges,
          rssBytes: memory.rss,
          anonBytes: anonymousRss(),
          heapBytes: memory.heapUsed,
          segmentBytes: states.reduce((sum, state) => sum + state.segment.byteLength, 0),
          segments: states.length,
        },
      });
    } else if (request.kind === 'close') {
      clearInterval(timer);
      await source.close();
      process.exit(0);
    }
  };
}

async function writer(root: string, file: string): Promise<void> {
  const { library, openStore } = await load(root);
  const store = openStore(file, library.findModel('intfloat/multilingual-e5-small'));
  send({ kind: 'ready', loadMs: 0, chunks: 0 });
  process.on('message', (request: ChildRequest) =>
    answer(async () => {
      if (request.kind === 'write') {
        store.replaceFile(request.record, request.chunks, Date.now());
        send({ kind: 'written', ackAtMs: nowMs() });
      } else if (request.kind === 'close') {
        store.close();
        process.exit(0);
      }
    }),
  );
}

/** RssAnon of /proc/self/status in bytes (NaN where there is none). */
function anonymousRss(): number {
  const status = readFileSync('/proc/self/status', { encoding: 'utf8', flag: 'r' });
  const kib = /^RssAnon:\s+(\d+) kB$/m.exec(status)?.[1];
  return kib === undefined ? Number.NaN : Number(kib) * 1024;
}

/** Runs a request's handler; a failure is the reply, so that the parent never waits for an answer that will not come. */
function answer(handle: () => Promise<void>): void {
  handle().catch((err: unknown) => send({ kind: 'failed', message: err instanceof Error ? err.message : String(err) }));
}

// A child never outlives the run that started it.
process.on('disconnect', () => process.exit(0));
const [role, root = '', file = ''] = process.argv.slice(2);
if (role === 'server') await server(root, file);
else if (role === 'writer') await writer(root, file);
else throw new Error(`unknown role ${role}`);
