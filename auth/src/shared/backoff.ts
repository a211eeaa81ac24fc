/** Capped exponential backoff; the delay is jittered within the upper half of the cap so retries from many clients spread out. */
export interface BackoffPolicy {
  readonly initialMs: number;
  readonly maxMs: number;
  /** Returns a value in [0, 1); injected so tests are deterministic. */
  readonly random?: () => number;
}

export function backoffDelayMs(policy: BackoffPolicy, attempt: number): number {
  const ceiling = Math.min(policy.maxMs, policy.initialMs * 2 ** Math.max(0, attempt));
  const random = policy.random ?? Math.random;
  return Math.max(1, Math.floor(ceiling * (0.5 + random() / 2)));
}

/** Resolves after `ms`, or rejects early with the signal's reason. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
