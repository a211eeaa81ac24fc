/**
 * Ours: how long `waitFor` polls before it calls the wait hung. A hang detector, not a budget: far
 * above anything a loaded machine needs, so a failure means the awaited thing never happened.
 */
const HUNG_AFTER_MS = 60_000;

/** Polls `check` until it returns a value other than undefined/false, or fails after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  check: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = HUNG_AFTER_MS,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
