import type { ChildOutput, RunningChild } from '../shared/child-processes.js';
import { outputTail } from '../shared/child-processes.js';

/** Ours: how long a child may take to print its listening line (node start-up is ~0.3 s here). */
export const START_TIMEOUT_MS = 15_000;

/** A child that exited or stayed silent before it was ready; the message carries the end of its stderr. */
export class ChildNotReadyError extends Error {
  constructor(child: RunningChild, exitCode: number | NodeJS.Signals | undefined, what: string) {
    const ending =
      exitCode === undefined ? `no ${what} within the time allowed` : `exited (${exitCode}) before ${what}`;
    super(`${child.name}: ${ending}${outputTail(child.output.stderr)}`);
    this.name = 'ChildNotReadyError';
  }
}

/**
 * Resolves with what `ready` finds in the child's output, as soon as it is there; rejects when the
 * child exits first or `timeoutMs` passes. Event-driven: checked on every chunk, never polled.
 */
export function untilOutput<T>(
  child: RunningChild,
  what: string,
  ready: (output: ChildOutput) => T | undefined,
  timeoutMs: number,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let done = false;
    const finish = (settle: () => void) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      unsubscribe();
      settle();
    };
    const check = () => {
      const found = ready(child.output);
      if (found !== undefined) finish(() => resolve(found));
    };
    const unsubscribe = child.onOutput(check);
    const timer = setTimeout(() => finish(() => reject(new ChildNotReadyError(child, undefined, what))), timeoutMs);
    child.exited.then((code) => {
      check();
      finish(() => reject(new ChildNotReadyError(child, code, what)));
    });
    check();
  });
}

/** The URL of a server's `listening on <url>` line (docs/protocol.md#overview: exactly one such line on stdout). */
export function listeningUrl(output: ChildOutput): string | undefined {
  return /^listening on (\S+)\n/m.exec(output.stdout)?.[1];
}
