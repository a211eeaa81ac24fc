import { WatchedFile } from '../../shared/watched-file.js';
import { StateBackedBundleSource } from './bundle-state.js';
import { importJwtBundleBytes } from './import-bundle.js';

export interface FileBundleSourceOptions {
  readonly path: string;
  /** The file holds one trust domain's bundle; the caller says which (the policy's trust domain). */
  readonly trustDomain: string;
  /** Stat poll: catches changes fs.watch misses (network file systems, a replaced directory). */
  readonly pollIntervalMs?: number;
  /** Skipped keys and read errors, for the operator's log. */
  readonly onEvent?: (message: string) => void;
}

/**
 * A static JWT bundle file (`--jwt-bundle FILE`), SPIFFE bundle or plain JWKS, re-read when it changes.
 * An unreadable or invalid file makes every lookup `unavailable` until it is fixed.
 */
export class FileBundleSource extends StateBackedBundleSource {
  readonly #file: WatchedFile;
  #closed = false;

  constructor(options: FileBundleSourceOptions) {
    super('JWT bundle file not read yet');
    const { path, trustDomain } = options;
    const onEvent = options.onEvent ?? (() => {});
    this.#file = new WatchedFile({
      path,
      ...(options.pollIntervalMs === undefined ? {} : { pollIntervalMs: options.pollIntervalMs }),
      onContent: async (bytes) => {
        const imported = await importJwtBundleBytes(bytes);
        for (const note of imported.ignored) onEvent(`${path}: ignoring ${note}`);
        if (this.#closed) return;
        this.state.replace(new Map([[trustDomain, { kind: 'keys', keys: imported.keys }]]));
      },
      onProblem: (problem) => {
        const reason = `JWT bundle file ${path}: ${problem}`;
        this.state.markUnavailable(reason);
        onEvent(reason);
      },
      onWatchError: onEvent,
    });
  }

  /** Reads the file once, then watches it. */
  start(): this {
    this.#file.start();
    return this;
  }

  /** Waits for the reads under way (the first one after start); then the file's problem, or null when its keys are in use. */
  settled(): Promise<string | null> {
    return this.#file.settled();
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#file.close();
    this.state.close();
  }
}
