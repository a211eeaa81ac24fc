import { UsageError } from '@notegate/kit/cli';
import { describeReadFailure, type FileCheck, readCheckedFile } from './checked-read.js';
import { trustedFileProblem } from './owner-only.js';
import { WatchedFile } from './watched-file.js';

/** How a change of the file ended: taken, or refused with the last good version kept (the metrics count them). */
export type ReloadResult = 'ok' | 'invalid';

/** Where a last-good file is and who hears of its changes. */
export interface LastGoodFileEvents {
  readonly path: string;
  /** Stat poll interval of the watch (tests shorten or lengthen it). */
  readonly pollIntervalMs?: number;
  /** Versions taken and refused, and trouble with the watch, for the operator's log. */
  readonly onEvent: (message: string) => void;
  readonly onReload?: (result: ReloadResult) => void;
}

export interface LastGoodFileOptions<T> extends LastGoodFileEvents {
  /** The flag that names the file, for the start-up error of an unreadable one. */
  readonly flag: string;
  /** The file holds a secret (the signing keys): group and others may not read it either. */
  readonly secret: boolean;
  /** Reads a version of the file (`current`: the version in force, none at open); a throw refuses it, naming why. */
  readonly parse: (text: string, current: T | undefined) => T | Promise<T>;
  /** The operator's line for a version taken after open. */
  readonly describeTaken: (value: T) => string;
  /** The operator's line for a version refused, while `current` stays in force. */
  readonly describeRefused: (problem: string, current: T) => string;
}

/**
 * A config file a server keeps reading while it runs (docs/protocol.md#policy-reload,
 * docs/protocol.md#signing-keys): the first read must succeed (`open` throws the start-up error: the
 * read's, naming the flag, or the parse's, naming the entry); afterwards a new version replaces the
 * one in force whole, and a bad one (unreadable, or refused by `parse`) is reported while the last
 * good version stays. These files decide who gets tokens, so every version, the first included, is
 * read only when the file as opened passes the rule of docs/security.md#files-the-services-trust
 * (owner, mode); one that does not is refused with the reason, like an invalid one.
 */
export class LastGoodFile<T> {
  readonly #file: WatchedFile;
  #current: T;
  #currentText: string;

  private constructor(options: LastGoodFileOptions<T>, text: string, value: T) {
    this.#current = value;
    this.#currentText = text;
    this.#file = new WatchedFile({
      path: options.path,
      check: trustRule(options.secret),
      ...(options.pollIntervalMs === undefined ? {} : { pollIntervalMs: options.pollIntervalMs }),
      onContent: async (bytes) => {
        const next = bytes.toString('utf8');
        if (next === this.#currentText) return;
        const value = await options.parse(next, this.#current);
        this.#current = value;
        this.#currentText = next;
        options.onReload?.('ok');
        options.onEvent(options.describeTaken(value));
      },
      onProblem: (problem) => {
        options.onReload?.('invalid');
        options.onEvent(options.describeRefused(problem, this.#current));
      },
      onWatchError: options.onEvent,
    });
  }

  /** Reads and parses the file (a problem is a start-up error), then watches it. */
  static async open<T>(options: LastGoodFileOptions<T>): Promise<LastGoodFile<T>> {
    let text: string;
    try {
      text = (await readCheckedFile(options.path, trustRule(options.secret))).toString('utf8');
    } catch (err) {
      throw new UsageError(`${options.flag} ${options.path}: ${describeReadFailure(err)}`);
    }
    const file = new LastGoodFile(options, text, await options.parse(text, undefined));
    file.#file.start();
    return file;
  }

  /** The version in force. */
  current(): T {
    return this.#current;
  }

  /** Reads the file again now, changed or not (SIGHUP); its outcome is reported even when unchanged. */
  reload(): void {
    this.#file.reload();
  }

  /** Resolves once the reads under way are done; then the problem of the file, or null when it is in force. */
  settled(): Promise<string | null> {
    return this.#file.settled();
  }

  close(): Promise<void> {
    return this.#file.close();
  }
}

function trustRule(secret: boolean): FileCheck {
  return (info) => {
    const problem = trustedFileProblem(info, secret);
    return problem === undefined ? undefined : `the file ${problem}`;
  };
}
