import { existsSync, statSync } from 'node:fs';
import type Database from 'better-sqlite3';
import type { DenseScan } from '../config/environment.js';
import type { ModelSpec } from '../config/models.js';
import { RagError } from '../errors/rag-error.js';
import { openDatabase } from '../store/open-database.js';
import { ScanThread } from '../vectors/scan-thread-client.js';
import type { WordIndexState } from '../words/word-index.js';
import { applyMerge } from './apply-merge.js';
import { IndexSnapshot } from './index-snapshot.js';
import type { SnapshotLoad } from './load-segments.js';
import { chooseMerge } from './merge-policy.js';
import { SegmentWorker, vectorBuildFor } from './segment-worker-client.js';

/** How often the index is checked for changes without requests (each request checks too). */
const POLL_INTERVAL_MS = 250;
/** Ours: reloads of a busy index are spaced by at least this. */
const MIN_RELOAD_SPACING_MS = 100;

/**
 * The pause before the next reload (docs/retrieval.md#snapshots). A load that
 * followed the changes cost what they changed, mostly in a worker thread, and
 * so does the first load of a server: the floor. A load that could not follow
 * (failed, or loaded whole over a served snapshot: another log, a reader too
 * far behind) would cost as much again: ten times its duration, so that such
 * loads beside a long `index` run cost the server at most ~10% of a core.
 */
function reloadSpacingMs(lastLoadMs: number, followed: boolean): number {
  return followed ? MIN_RELOAD_SPACING_MS : Math.max(MIN_RELOAD_SPACING_MS, 10 * lastLoadMs);
}

export type SnapshotState =
  | { readonly kind: 'loading' }
  | { readonly kind: 'missing'; readonly reason: string }
  | { readonly kind: 'failed'; readonly reason: string }
  | { readonly kind: 'ready'; readonly snapshot: IndexSnapshot };

export interface SnapshotSourceOptions {
  readonly indexPath: string;
  readonly model: ModelSpec;
  readonly clock?: () => number;
  /** Pause before the next reload may start, given the last load's duration and whether it followed (default: reloadSpacingMs). */
  readonly reloadSpacing?: (lastLoadMs: number, followed: boolean) => number;
  readonly onReload?: (event: ReloadEvent) => void;
  /** Keeps the word tier's postings in memory (default true; see IndexSnapshot.open). */
  readonly memoryWords?: boolean;
  /** Whether large segments are searched approximately (default auto; docs/retrieval.md#dense-leg). */
  readonly denseScan?: DenseScan;
  /** How the word index of each whole load ended: ready, or unavailable and why (SQLite ranks then). */
  readonly onWordIndex?: (state: WordIndexState) => void;
  /** When a merge of segments starts, and how it ended (docs/retrieval.md#snapshots). */
  readonly onMerge?: (event: MergeEvent) => void;
}

export type MergeEvent =
  | { readonly kind: 'started'; readonly segments: number; readonly rows: number }
  | { readonly kind: 'merged'; readonly segments: number; readonly rows: number; readonly durationMs: number }
  | { readonly kind: 'failed'; readonly error: string };

export type ReloadEvent =
  | { readonly chunks: number; readonly durationMs: number; readonly load: SnapshotLoad }
  | { readonly error: string };

/**
 * Keeps the current index snapshot and follows the file: `PRAGMA
 * data_version` on a separate connection changes whenever another connection
 * (an `index` run) commits, and the file's inode changes when it is replaced.
 * A change loads a new snapshot in the background while requests keep using
 * the old one; the swap is one assignment, so a request sees one or the other.
 * The new snapshot's in-memory index is the old one's plus what changed
 * (docs/retrieval.md#snapshots), built in a worker thread; another worker
 * merges segments in the background, and the merged index replaces the
 * current snapshot's between two requests (the same state, laid out anew).
 */
export class SnapshotSource {
  private state: SnapshotState = { kind: 'loading' };
  private probe: { db: Database.Database; inode: number } | undefined;
  private loadedVersion: number | undefined;
  private changed = false;
  private reloading: Promise<void> | undefined;
  private nextReloadAtMs = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly clock: () => number;
  /**
   * Builds segments: whole loads and each commit's changes (one at a time, as
   * loads are). Its thread is stopped after a whole load and what follows
   * it, which held a copy of every array of the index.
   */
  private readonly builder: SegmentWorker;
  /**
   * Merges segments, beside the builder, so that a commit never waits for a
   * merge; its thread is stopped after each merge, so that the segments it
   * was sent and replaced are freed once the served snapshot lets go of them.
   */
  private readonly merger: SegmentWorker;
  /** Scans large segments beside a hybrid search's lexical leg (docs/retrieval.md#dense-leg). */
  private readonly scanThread = new ScanThread();
  private merging = false;
  private closed = false;

  constructor(private readonly options: SnapshotSourceOptions) {
    this.clock = options.clock ?? Date.now;
    const vectors = vectorBuildFor(options.denseScan ?? 'auto');
    this.builder = new SegmentWorker({ stopWhenIdleAfter: ['base', 'deleted-postings'], vectors });
    this.merger = new SegmentWorker({ stopWhenIdleAfter: ['merge'], vectors });
  }

  /** Loads the first snapshot and starts polling. */
  async start(): Promise<void> {
    this.timer = setInterval(() => this.check(), POLL_INTERVAL_MS);
    this.timer.unref();
    await this.reload();
  }

  get current(): SnapshotState {
    return this.state;
  }

  /** True when the index changed after the snapshot being served was taken (a reload is pending or running). */
  get stale(): boolean {
    return this.changed || this.reloading !== undefined;
  }

  /** Cheap (a pragma and a stat); starts a background reload when the index changed. */
  check(): void {
    if (this.reloading) return;
    this.changed ||= this.detectChange();
    if (this.changed && this.clock() >= this.nextReloadAtMs) void this.reload();
  }

  /**
   * For a process that has just committed to the index itself (an index run
   * that follows the vaults, docs/retrieval.md#following-the-vaults): reloads
   * at once when the index changed, whatever the spacing, and resolves once
   * the snapshot being served includes every commit made before the call.
   */
  async refresh(): Promise<void> {
    await this.settled();
    this.changed ||= this.detectChange();
    if (this.changed) await this.reload();
  }

  /** Resolves when no reload is running (tests and shutdown). */
  async settled(): Promise<void> {
    while (this.reloading) await this.reloading;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    await this.merger.close();
    await this.settled();
    await this.builder.close();
    await this.scanThread.close();
    if (this.state.kind === 'ready') this.state.snapshot.close();
    this.probe?.db.close();
    this.probe = undefined;
  }

  private reload(): Promise<void> {
    this.reloading ??= this.load().finally(() => {
      this.reloading = undefined;
    });
    return this.reloading;
  }

  private async load(): Promise<void> {
    this.changed = false;
    const { indexPath, model, onReload } = this.options;
    const startedAtMs = this.clock();
    let followed = false;
    try {
      // The version is read before the snapshot is taken, so a commit in between only causes one more reload.
      this.loadedVersion = this.openProbe();
      const previous = this.state;
      const snapshot = await IndexSnapshot.open(indexPath, {
        model,
        clock: this.clock,
        // The snapshot served follows the index's changes; another state (failed, missing) is loaded whole.
        previous: previous.kind === 'ready' ? previous.snapshot : undefined,
        memoryWords: this.options.memoryWords,
        worker: this.builder,
        scanThread: this.scanThread,
      });
      this.state = { kind: 'ready', snapshot };
      this.scanThread.follow(snapshot.segments.codeMemories());
      followed = snapshot.load.kind !== 'whole' || previous.kind === 'loading';
      if (previous.kind === 'ready') previous.snapshot.close();
      onReload?.({ chunks: snapshot.chunks, durationMs: snapshot.loadDurationMs, load: snapshot.load });
      if (snapshot.load.kind === 'whole') this.options.onWordIndex?.(snapshot.load.wordIndex);
      this.mergeWhenDue();
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      const previous = this.state;
      this.state =
        err instanceof RagError && err.code === 'ERR_INDEX_MISSING'
          ? { kind: 'missing', reason }
          : { kind: 'failed', reason };
      if (previous.kind === 'ready') previous.snapshot.close();
      // No segment is served: the scan thread lets go of those it was sent.
      this.scanThread.follow(new Set());
      onReload?.({ error: reason });
    }
    const tookMs = this.clock() - startedAtMs;
    this.nextReloadAtMs = this.clock() + (this.options.reloadSpacing ?? reloadSpacingMs)(tookMs, followed);
  }

  /** Starts a merge in the merging worker when the policy asks for one and none is running. */
  private mergeWhenDue(): void {
    const state = this.state;
    if (this.merging || this.closed || state.kind !== 'ready') return;
    const set = state.snapshot.segments;
    const chosen = chooseMerge(set.states.map((s) => ({ rows: s.segment.rowCount, deleted: s.deletedCount })));
    if (chosen === undefined) return;
    const sources = chosen.map((i) => set.stateAt(i));
    const startedAtMs = this.clock();
    this.merging = true;
    const rows = sources.reduce((sum, s) => sum + s.segment.rowCount, 0);
    this.options.onMerge?.({ kind: 'started', segments: sources.length, rows });
    void this.merger
      .run({ kind: 'merge', sources: sources.map((s) => ({ parts: s.segment.parts, deleted: s.deleted })) })
      .then(async (merged) => {
        // Installed between two loads, never in the middle of one (which started from the sources).
        await this.settled();
        const served = this.state;
        if (this.closed || served.kind !== 'ready') return;
        const replaced = applyMerge(served.snapshot.segments, sources, merged);
        if (replaced === undefined) return;
        served.snapshot.replaceSegments(replaced);
        this.scanThread.follow(replaced.codeMemories());
        this.options.onMerge?.({
          kind: 'merged',
          segments: sources.length,
          rows: merged.parts.matrix.count,
          durationMs: this.clock() - startedAtMs,
        });
      })
      .catch((err: unknown) => {
        if (!this.closed)
          this.options.onMerge?.({ kind: 'failed', error: err instanceof Error ? err.message : String(err) });
      })
      .finally(() => {
        this.merging = false;
        this.mergeWhenDue();
      });
  }

  /** (Re)opens the change probe on the current file; returns its data version. */
  private openProbe(): number | undefined {
    const { indexPath } = this.options;
    if (!existsSync(indexPath)) {
      this.probe?.db.close();
      this.probe = undefined;
      return undefined;
    }
    const inode = statSync(indexPath).ino;
    if (this.probe?.inode !== inode) {
      this.probe?.db.close();
      this.probe = { db: openDatabase(indexPath, { reader: true }), inode };
    }
    return Number(this.probe.db.pragma('data_version', { simple: true }));
  }

  private detectChange(): boolean {
    const { indexPath } = this.options;
    const exists = existsSync(indexPath);
    if (!this.probe) return exists;
    if (!exists || statSync(indexPath).ino !== this.probe.inode) return true;
    return Number(this.probe.db.pragma('data_version', { simple: true })) !== this.loadedVersion;
  }
}
