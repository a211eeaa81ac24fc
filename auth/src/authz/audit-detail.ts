import { clip } from '../shared/clip.js';

/** Input quoted in an audit detail: JSON-escaped and cut short, so a hostile value cannot bloat the log. */
export function quoted(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  return JSON.stringify(clip(text));
}
