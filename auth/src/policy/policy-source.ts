import { readConfigText } from '../shared/config-file.js';
import { WatchedFile } from '../shared/watched-file.js';
import type { Policy } from './policy.js';
import { parsePolicy } from './policy-file.js';

/** Where the token endpoint reads the policy in force from, once per request. */
export interface PolicySource {
  current(): Policy;
}

/** A policy that never changes (tests, benchmarks). */
export function fixedPolicy(policy: Policy): PolicySource {
  return { current: () => policy };
}

export interface PolicyFileOptions {
  readonly path: string;
  readonly pollIntervalMs?: number;
  /** Reloads and refused files, for the operator's log. */
  readonly onEvent: (message: string) => void;
  /** Every change that was taken (`ok`) or refused (`invalid`); the metrics count them. */
  readonly onReload?: (result: 'ok' | 'invalid') => void;
}

/**
 * `--policy FILE`, reloaded when the file changes and on `reload()` (SIGHUP), as docs/protocol.md#policy-reload
 * says: a new policy replaces the old one whole, between two requests; an invalid one is refused,
 * the old one stays, and the message names the wrong entry. The trust domain cannot change while
 * the process runs: the JWT bundle source was opened for it.
 */
export class PolicyFile implements PolicySource {
  readonly #file: WatchedFile;
  readonly #options: PolicyFileOptions;
  #current: Policy;
  #currentText: string;

  private constructor(options: PolicyFileOptions, text: string, policy: Policy) {
    this.#options = options;
    this.#current = policy;
    this.#currentText = text;
    this.#file = new WatchedFile({
      path: options.path,
      ...(options.pollIntervalMs === undefined ? {} : { pollIntervalMs: options.pollIntervalMs }),
      onContent: (bytes) => this.#take(bytes.toString('utf8')),
      onProblem: (problem) => {
        options.onReload?.('invalid');
        options.onEvent(`policy reload refused, the previous policy stays in force: ${problem}`);
      },
      onWatchError: options.onEvent,
    });
  }

  /** Reads and checks the file (a problem is a start-up error naming the entry), then watches it. */
  static async open(options: PolicyFileOptions): Promise<PolicyFile> {
    const text = await readConfigText('--policy', options.path);
    const source = new PolicyFile(options, text, parsePolicy(text, options.path));
    source.#file.start();
    return source;
  }

  current(): Policy {
    return this.#current;
  }

  /** Reads the file again now, changed or not (SIGHUP). */
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

  #take(text: string): void {
    if (text === this.#currentText) return;
    const policy = parsePolicy(text, this.#options.path);
    if (policy.trustDomain !== this.#current.trustDomain) {
      throw new Error(
        `trust_domain: '${policy.trustDomain}' differs from '${this.#current.trustDomain}' in force; changing it needs a restart`,
      );
    }
    this.#current = policy;
    this.#currentText = text;
    this.#options.onReload?.('ok');
    this.#options.onEvent(`policy reloaded from ${this.#options.path} (${policy.document.grants.length} grants)`);
  }
}
