import { existsSync } from 'node:fs';
import { errorMessage } from '@notegate/kit';
import { DEFAULT_MODEL_HUB_URL } from '../config/environment.js';
import type { RagConfig } from '../config/load-config.js';
import type { ModelSpec } from '../config/models.js';
import { noDownloads } from '../embed/download.js';
import type { Embedder } from '../embed/embedder.js';
import { RagError } from '../errors/rag-error.js';
import { isMarkdownName } from '../walk/vault-path.js';
import { runIndex } from './run-index.js';
import type { IndexSummary } from './types.js';

/** Ours: events closer together than this are one change (an editor writes a file in several steps). */
const FOLLOW_DEBOUNCE_MS = 150;
/** Ours: while another index run holds the lock, ask again this often (never give up). */
const BUSY_RETRY_MS = 250;

export interface IndexFollowerOptions {
  readonly config: RagConfig;
  /** Only these vaults (others in the index are left alone); default every vault of the config, as `index` does. */
  readonly vaultIds?: readonly string[];
  readonly modelCacheDir: string;
  /** Named in the message that lists missing model files (default: the public hub). */
  readonly modelHubUrl?: URL;
  /** The passage model; default the model's files from the cache (never downloaded here). */
  readonly loadEmbedder?: (model: ModelSpec, cacheDir: string) => Promise<Embedder>;
  /** After each run, before anyone waiting for it hears of it: make the new state searchable. */
  readonly onIndexed: (summary: IndexSummary) => Promise<void> | void;
  readonly log: (line: string) => void;
  /** False: no run while the index file does not exist (it is made by `notegate-rag index`). */
  readonly createIndex: boolean;
  readonly debounceMs?: number;
  readonly busyRetryMs?: number;
}

type RunOutcome = 'indexed' | 'busy' | 'failed';

/** What the next run indexes: every note of the followed vaults, or some notes by vault (docs/retrieval.md#following-the-vaults). */
type Wanted = 'all' | Map<string, Set<string>>;

/**
 * Keeps an index up to date with its vaults (docs/retrieval.md#following-the-vaults):
 * `changed()` asks for an incremental index run after a quiet moment,
 * `indexNow()` for one at once and waits for it. Runs never overlap; changes
 * that arrive during a run cause one more run after it. When another process
 * holds the index lock the run is tried again later, never dropped. A change
 * that names its notes is indexed by a run over those notes alone, so that
 * it costs what it changes, not what the vault holds; anything else (the
 * start-up run, a folder, an unnamed event, a vault with symlinks)
 * walks the vaults.
 */
export class IndexFollower {
  readonly #options: IndexFollowerOptions;
  readonly #debounceMs: number;
  readonly #busyRetryMs: number;
  #dirty = false;
  #wanted: Wanted = 'all';
  /** Vaults whose last walk went through a symlink: a note there may have a second path. */
  readonly #linked = new Set<string>();
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #waiting: ((indexed: boolean) => void)[] = [];
  #closed = false;
  #waitingForLock = false;
  #toldMissing = false;

  constructor(options: IndexFollowerOptions) {
    this.#options = options;
    this.#debounceMs = options.debounceMs ?? FOLLOW_DEBOUNCE_MS;
    this.#busyRetryMs = options.busyRetryMs ?? BUSY_RETRY_MS;
  }

  /**
   * Something in the vaults changed (a note at `path`, relative to vault
   * `vaultId`, when known): index after a quiet moment.
   */
  changed(vaultId?: string, path?: string): void {
    if (this.#closed) return;
    this.#want(vaultId, path);
    this.#dirty = true;
    this.#schedule(this.#debounceMs);
  }

  /**
   * Runs an index run that starts after this call (over `notes` alone, paths
   * by vault id, when given); true once it has committed and been made searchable.
   */
  indexNow(notes?: ReadonlyMap<string, readonly string[]>): Promise<boolean> {
    if (this.#closed) return Promise.resolve(false);
    if (notes === undefined) this.#want(undefined, undefined);
    for (const [vaultId, paths] of notes ?? []) for (const path of paths) this.#want(vaultId, path);
    return new Promise((resolve) => {
      this.#waiting.push(resolve);
      this.#dirty = true;
      this.#schedule(0);
    });
  }

  /** Stops following; a run in progress finishes first. */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    await this.#running;
    for (const resolve of this.#waiting.splice(0)) resolve(false);
  }

  #schedule(delayMs: number): void {
    if (this.#running || this.#closed) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#running = this.#cycle().finally(() => {
        this.#running = undefined;
        if (this.#dirty) this.#schedule(this.#waiting.length > 0 ? 0 : this.#debounceMs);
      });
    }, delayMs);
  }

  /** Adds a note to the next run, or makes it walk every vault (`'all'` stays `'all'` until it runs). */
  #want(vaultId: string | undefined, path: string | undefined): void {
    const wanted = this.#wanted;
    if (wanted === 'all') return;
    const note = path?.split(/[\\/]/).join('/');
    if (vaultId === undefined || note === undefined || !isMarkdownName(note) || this.#linked.has(vaultId)) {
      this.#wanted = 'all';
      return;
    }
    const paths = wanted.get(vaultId) ?? new Set<string>();
    wanted.set(vaultId, paths.add(note));
  }

  async #cycle(): Promise<void> {
    this.#dirty = false;
    const waiting = this.#waiting.splice(0);
    const wanted = this.#wanted;
    this.#wanted = new Map();
    const outcome = await this.#runOnce(wanted);
    if (outcome === 'busy' && !this.#closed) {
      // Nothing was indexed: what this run wanted is wanted by the next one too.
      if (wanted === 'all') this.#wanted = 'all';
      else for (const [vaultId, paths] of wanted) for (const path of paths) this.#want(vaultId, path);
      if (!this.#waitingForLock) this.#options.log('another index run holds the index; indexing once it has finished');
      this.#waitingForLock = true;
      this.#waiting.unshift(...waiting);
      this.#dirty = false;
      clearTimeout(this.#timer);
      this.#timer = setTimeout(() => {
        this.#dirty = true;
        this.#schedule(0);
      }, this.#busyRetryMs);
      return;
    }
    this.#waitingForLock = false;
    for (const resolve of waiting) resolve(outcome === 'indexed');
  }

  async #runOnce(wanted: Wanted): Promise<RunOutcome> {
    const { config, vaultIds, modelCacheDir, loadEmbedder, log } = this.#options;
    if (!this.#options.createIndex && !existsSync(config.indexPath)) {
      if (!this.#toldMissing)
        log(`not indexing: there is no index at ${config.indexPath} yet; run 'notegate-rag index'`);
      this.#toldMissing = true;
      return 'failed';
    }
    this.#toldMissing = false;
    try {
      const summary = await runIndex({
        config,
        ...(vaultIds && { vaultIds }),
        ...(wanted !== 'all' && { notes: new Map([...wanted].map(([vault, paths]) => [vault, [...paths]])) }),
        onProgress: (event) => {
          if (event.kind !== 'scanned' || event.links === undefined) return;
          if (event.links > 0) this.#linked.add(event.vault);
          else this.#linked.delete(event.vault);
        },
        modelCacheDir,
        // Following never downloads: a missing model is reported, as a search reports it.
        download: noDownloads(this.#options.modelHubUrl ?? new URL(DEFAULT_MODEL_HUB_URL)),
        ...(loadEmbedder && { loadEmbedder }),
      });
      for (const failed of summary.failed) log(`indexing ${failed.vault}/${failed.path} failed: ${failed.error}`);
      if (summary.new + summary.updated + summary.removed > 0) {
        log(
          `indexed: ${summary.new} new, ${summary.updated} updated, ${summary.removed} removed (${summary.durationMs} ms)`,
        );
      }
      await this.#options.onIndexed(summary);
      return 'indexed';
    } catch (err) {
      if (err instanceof RagError && err.code === 'ERR_INDEX_BUSY') return 'busy';
      log(`index run failed: ${err instanceof RagError ? `${err.code}: ${err.message}` : errorMessage(err)}`);
      return 'failed';
    }
  }
}
