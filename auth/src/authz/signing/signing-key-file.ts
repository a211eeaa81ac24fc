import { WatchedFile } from '../../shared/watched-file.js';
import { parseSigningKeyFile } from './key-file.js';
import type { SigningKeySet, SigningKeySource } from './signing-key.js';

export type ReloadResult = 'ok' | 'invalid';

export interface SigningKeyFileOptions {
  readonly path: string;
  readonly pollIntervalMs?: number;
  /** Reloads and refused files, for the operator's log. */
  readonly onEvent: (message: string) => void;
  /** Every change of the file that was taken or refused (the metrics count them). */
  readonly onReload?: (result: ReloadResult) => void;
}

/**
 * `--signing-keys FILE`, re-read when it changes (docs/protocol.md#signing-keys). The first read must
 * succeed (`open` throws, naming what is wrong); a bad file later keeps the last good keys.
 */
export class SigningKeyFile implements SigningKeySource {
  readonly #file: WatchedFile;
  #current: SigningKeySet | undefined;
  #currentText: string | undefined;

  private constructor(options: SigningKeyFileOptions) {
    const { path, onEvent } = options;
    this.#file = new WatchedFile({
      path,
      ...(options.pollIntervalMs === undefined ? {} : { pollIntervalMs: options.pollIntervalMs }),
      onContent: async (bytes) => {
        const text = bytes.toString('utf8');
        if (text === this.#currentText) return;
        const set = await parseSigningKeyFile(text);
        const first = this.#current === undefined;
        this.#current = set;
        this.#currentText = text;
        if (first) return;
        options.onReload?.('ok');
        onEvent(`signing keys reloaded from ${path}: ${describeKeys(set)}`);
      },
      onProblem: (problem) => {
        if (this.#current === undefined) return;
        options.onReload?.('invalid');
        onEvent(`signing key file ${path}: ${problem}; keeping the last good keys (${describeKeys(this.#current)})`);
      },
      onWatchError: onEvent,
    });
  }

  /** Reads the file and starts watching it; throws an Error naming the problem when the first read fails. */
  static async open(options: SigningKeyFileOptions): Promise<SigningKeyFile> {
    const source = new SigningKeyFile(options);
    const problem = await source.#file.start().settled();
    if (problem !== null || source.#current === undefined) {
      await source.close();
      throw new Error(problem ?? 'no keys read');
    }
    return source;
  }

  current(): SigningKeySet {
    if (this.#current === undefined) throw new Error('signing key file read before open');
    return this.#current;
  }

  close(): Promise<void> {
    return this.#file.close();
  }
}

function describeKeys(set: SigningKeySet): string {
  return `signing with ${set.signing.kid}, publishing ${set.keys.map((key) => key.kid).join(', ')}`;
}
