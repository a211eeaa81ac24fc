import { clip } from '../shared/clip.js';

/** Input quoted in an audit detail: JSON-escaped and cut short, so a hostile value cannot bloat the log. */
export function quoted(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  return JSON.stringify(clip(text));
}

/**
 * For the operator who meets reject mode with an SVID source that caches (docs/protocol.md#replay-modes):
 * a SPIRE agent hands every fetch the same JWT-SVID, jti included, for about half its lifetime.
 */
export const CACHING_SOURCE_ADVICE =
  'Reject mode takes each SVID once; an SVID source that caches SVIDs (a SPIRE agent does) needs ' +
  '--svid-replay allow-reuse-within-lifetime';
