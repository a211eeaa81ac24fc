import { existsSync, statSync } from 'node:fs';
import type Database from 'better-sqlite3';
import type { ModelSpec } from '../config/models.js';
import { RagError } from '../errors/rag-error.js';
import { openDatabase } from '../store/open-database.js';
import type { WordIndexState } from '../words/word-index.js';
import { IndexSnapshot } from './index-snapshot.js';

/** How often the index is checked for changes without requests (each request checks too). */
const POLL_INTERVAL_MS = 1_000;
/**
 * Reloads of a busy index are spaced by at least this, and by ten times the
 * last load's duration, so a long `index` run beside the server costs it at
 * most ~10% of one core.
 */
const MIN_RELOAD_SPACING_MS = 2_000;

function reloadSpacingMs(lastLoadMs: number): number {
  return Math.max(MIN_RELOAD_SPACING_MS, 10 * lastLoadMs);
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
  /** Pause before the next reload may start, given the last load's duration (default: reloadSpacingMs). */
  readonly reloadSpacing?: (lastLoadMs: number) => number;
  readonly onReload?: (event: { chunks: number; durationMs: number } | { error: string }) => void;
  /** Builds each generation's in-memory word index (default true; see IndexSnapshot.open). */
  readonly memoryWords?: boolean;
  /** How each new generation's word index ended: ready, or unavailable and why (SQLite ranks then). */
  readonly onWordIndex?: (state: Exclude<WordIndexState, { kind: 'building' }>) => void;
}

/**
 * Keeps the current index snapshot and follows the file: `PRAGMA
 * data_version` on a separate connection changes whenever another connection
 * (an `index` run) commits, and the file's inode changes when it is replaced.
 * A change loads a new snapshot in the background while requests keep using
 * the old one; the swap is one assignment, so a request sees one or the other.
 * The new snapshot loads the vectors again only when their generation changed.
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

  constructor(private readonly options: SnapshotSourceOptions) {
    this.clock = options.clock ?? Date.now;
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
    if (this.timer) clearInterval(this.timer);
    await this.settled();
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

  /** Reports the build once it ends, unless a newer snapshot has replaced this one meanwhile. */
  private async reportWordIndex(snapshot: IndexSnapshot): Promise<void> {
    await snapshot.wordIndexSettled();
    const state = snapshot.wordIndex;
    const current = this.state.kind === 'ready' && this.state.snapshot === snapshot;
    if (current && state.kind !== 'building') this.options.onWordIndex?.(state);
  }

  private async load(): Promise<void> {
    this.changed = false;
    const { indexPath, model, onReload } = this.options;
    const startedAtMs = this.clock();
    try {
      // The version is read before the snapshot is taken, so a commit in between only causes one more reload.
      this.loadedVersion = this.openProbe();
      const previous = this.state;
      // Most commits (a finished no-op run, mtime updates) leave the vectors as they were: those are kept.
      const current = previous.kind === 'ready' ? previous.snapshot : undefined;
      const snapshot = await IndexSnapshot.open(indexPath, model, this.clock, current, {
        memoryWords: this.options.memoryWords,
      });
      this.state = { kind: 'ready', snapshot };
      if (previous.kind === 'ready') previous.snapshot.close();
      onReload?.({ chunks: snapshot.chunks, durationMs: snapshot.loadDurationMs });
      if (snapshot.wordIndex.kind === 'building') void this.reportWordIndex(snapshot);
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      const previous = this.state;
      this.state =
        err instanceof RagError && err.code === 'ERR_INDEX_MISSING'
          ? { kind: 'missing', reason }
          : { kind: 'failed', reason };
      if (previous.kind === 'ready') previous.snapshot.close();
      onReload?.({ error: reason });
    }
    const tookMs = this.clock() - startedAtMs;
    this.nextReloadAtMs = this.clock() + (this.options.reloadSpacing ?? reloadSpacingMs)(tookMs);
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
