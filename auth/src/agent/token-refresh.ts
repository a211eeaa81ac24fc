import type { BackoffPolicy } from '../shared/backoff.js';

/**
 * When and how a long-running client replaces its access token; shared by the stdio wrapper
 * (docs/protocol.md#stdio-wrapper-mcp-svid-stdio) and the proxy (docs/protocol.md#proxy).
 */

/** Ours: retries start after about a second and never wait more than 30 s (capped, jittered). */
export const REFRESH_RETRY_BACKOFF: BackoffPolicy = { initialMs: 1_000, maxMs: 30_000 };
/** Never refresh in a tighter loop than this, whatever the token says. */
const MIN_REFRESH_DELAY_MS = 1_000;

/**
 * When to replace a token that expires at `expiresAtMs`: once only `marginMs` of it is left. A token
 * that starts with no more than the margin (a short-lived one) is replaced at half its remaining life,
 * so short lifetimes never turn into a refresh loop.
 */
export function refreshDelayMs(expiresAtMs: number, nowMs: number, marginMs: number): number {
  const remainingMs = expiresAtMs - nowMs;
  const delayMs = remainingMs > marginMs ? remainingMs - marginMs : remainingMs / 2;
  return Math.max(MIN_REFRESH_DELAY_MS, Math.floor(delayMs));
}
