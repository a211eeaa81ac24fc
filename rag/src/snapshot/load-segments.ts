import { LoopSlices } from '@notegate/kit';
import type Database from 'better-sqlite3';
import type { ModelSpec } from '../config/models.js';
import { type LogPosition, readChangesSince, readLogPosition } from '../store/change-log.js';
import type { IndexMeta } from '../store/index-meta.js';
import { readChunkTexts } from '../store/load-vectors.js';
import { type Fts5Totals, readFts5Totals } from '../words/fts5-totals.js';
import type { WordIndexState } from '../words/word-index.js';
import { WORD_COLUMN_WEIGHTS } from '../words/word-postings-reader.js';
import { applyDelta, DeltaRefused } from './apply-delta.js';
import { planDelta } from './delta-plan.js';
import { Segment } from './segment.js';
import type { BaseBuilt } from './segment-jobs.js';
import { SegmentSet } from './segment-set.js';
import type { SegmentJobs } from './segment-worker-client.js';

/**
 * Ours: a state this many changes ahead (or a quarter of the live rows, when
 * more) is loaded whole instead: its changes would cost about as much, and
 * reading the removed chunks' texts happens in one go on the serving thread.
 */
const MAX_FOLLOWED_CHANGES = 10_000;
/** Ours: a whole load that the writers keep overtaking (a rebuild, a catch-up that does not add up) is tried this often. */
const WHOLE_LOAD_ATTEMPTS = 3;

/** How a snapshot's in-memory index came to be (docs/retrieval.md#snapshots). */
export type SnapshotLoad =
  | { readonly kind: 'same' }
  | { readonly kind: 'changes'; readonly changes: number }
  | { readonly kind: 'whole'; readonly reason: string; readonly wordIndex: WordIndexState };

export interface LoadedSegments {
  readonly meta: IndexMeta;
  readonly position: LogPosition;
  readonly totals: Fts5Totals | undefined;
  readonly segments: SegmentSet;
  readonly load: SnapshotLoad;
}

/** What a new snapshot needs of the one served until now to follow it. */
export interface FollowedSnapshot {
  readonly position: LogPosition;
  readonly totals: Fts5Totals | undefined;
  readonly segments: SegmentSet;
  /** Its connection, still inside its read transaction: the earlier state's texts. */
  readonly db: Database.Database;
}

export interface LoadOptions {
  readonly file: string;
  readonly model: ModelSpec;
  readonly previous: FollowedSnapshot | undefined;
  readonly memoryWords: boolean;
  readonly worker: SegmentJobs;
  /** Starts the snapshot's read transaction on the connection and checks the index in it. */
  readonly begin: () => IndexMeta;
}

/**
 * The in-memory index of the state the connection `db` will hold
 * (docs/retrieval.md#snapshots): the previous snapshot's, changed by what the
 * change log says happened since, when that can be followed; else the whole
 * index, loaded by the worker from its own read transaction, then brought to
 * this connection's (later) state the same way.
 */
export async function loadSegments(db: Database.Database, options: LoadOptions): Promise<LoadedSegments> {
  let reason = 'first load';
  if (options.previous) {
    const meta = options.begin();
    const followed = await follow(db, meta, options.previous, options);
    if (typeof followed !== 'string') return followed;
    reason = followed;
    db.exec('COMMIT');
  }
  return loadWhole(db, reason, options);
}

async function follow(
  db: Database.Database,
  meta: IndexMeta,
  previous: FollowedSnapshot,
  options: LoadOptions,
): Promise<LoadedSegments | string> {
  const position = readLogPosition(db);
  if (position.logId !== previous.position.logId) return 'the index was rebuilt';
  if (position.seq === previous.position.seq) {
    return { meta, position, totals: previous.totals, segments: previous.segments, load: { kind: 'same' } };
  }
  const changes = readChangesSince(db, previous.position.seq);
  if (changes === undefined) return 'the change log no longer reaches back to the state served';
  if (changes.length > Math.max(MAX_FOLLOWED_CHANGES, previous.segments.liveRows / 4)) {
    return `${changes.length} changes since the state served`;
  }
  const planned = await new LoopSlices().run(planDelta(changes, (chunkId) => previous.segments.locate(chunkId)));
  if (!planned.ok) return planned.reason;
  const totals = previous.totals ? wordTotals(db) : undefined;
  try {
    const segments = await applyDelta(
      previous.segments,
      planned.plan,
      {
        db,
        layout: meta.lexicalLayout,
        dimension: meta.dimension,
        removedTexts: (chunkIds) => readChunkTexts(previous.db, chunkIds),
        worker: options.worker,
      },
      previous.totals && totals ? { before: previous.totals, after: totals } : undefined,
    );
    return { meta, position, totals, segments, load: { kind: 'changes', changes: changes.length } };
  } catch (err) {
    if (err instanceof DeltaRefused) return err.message;
    throw err;
  }
}

async function loadWhole(db: Database.Database, reason: string, options: LoadOptions): Promise<LoadedSegments> {
  let refused: string | undefined;
  for (let attempt = 1; attempt <= WHOLE_LOAD_ATTEMPTS; attempt += 1) {
    // The last attempt leaves the word tier to SQLite rather than the index to nobody.
    const words = options.memoryWords && attempt < WHOLE_LOAD_ATTEMPTS;
    const built = await options.worker.run({ kind: 'base', file: options.file, model: options.model, words });
    // Taken after the worker's: this state is the same or later, and the log leads from one to the other.
    const meta = options.begin();
    const position = readLogPosition(db);
    const totals = built.totals ? wordTotals(db) : undefined;
    const caughtUp = await catchUp(db, meta, position, built, totals, options.worker);
    if (typeof caughtUp !== 'string') {
      const wordIndex = built.wordIndex ?? { kind: 'unavailable', reason: refused ?? 'switched off' };
      return { meta, position, totals, segments: caughtUp, load: { kind: 'whole', reason, wordIndex } };
    }
    refused = caughtUp;
    db.exec('COMMIT');
  }
  throw new Error(`the index kept changing during its load: ${refused}`);
}

/**
 * The worker's segment brought from its state to this connection's: the
 * changes in between, the postings in deleted rows counted by walking them
 * (no connection holds the worker's state any more). A string says why not.
 */
async function catchUp(
  db: Database.Database,
  meta: IndexMeta,
  position: LogPosition,
  built: BaseBuilt,
  totals: Fts5Totals | undefined,
  worker: SegmentJobs,
): Promise<SegmentSet | string> {
  const segments = SegmentSet.of([new Segment(built.parts)]);
  if (position.logId !== built.position.logId) return 'the index was rebuilt during the load';
  if (position.seq === built.position.seq) return segments;
  const changes = readChangesSince(db, built.position.seq);
  if (changes === undefined) return 'the change log was pruned during the load';
  const planned = await new LoopSlices().run(planDelta(changes, (chunkId) => segments.locate(chunkId)));
  if (!planned.ok) return planned.reason;
  const sources = { db, layout: meta.lexicalLayout, dimension: meta.dimension, removedTexts: undefined, worker };
  const check = built.totals && totals ? { before: built.totals, after: totals } : undefined;
  try {
    return await applyDelta(segments, planned.plan, sources, check);
  } catch (err) {
    if (err instanceof DeltaRefused) return err.message;
    throw err;
  }
}

function wordTotals(db: Database.Database): Fts5Totals {
  return readFts5Totals(db, WORD_COLUMN_WEIGHTS.length);
}
