import type { Registrar } from '@notegate/kit/testing';

export type { Registrar };

/** Cleanups registered in a `before` hook and run, last first, in the matching `after` hook. */
export class Cleanups implements Registrar {
  readonly #fns: (() => unknown)[] = [];

  after(fn: () => unknown): void {
    this.#fns.push(fn);
  }

  async run(): Promise<void> {
    for (const fn of this.#fns.reverse()) await fn();
  }
}
