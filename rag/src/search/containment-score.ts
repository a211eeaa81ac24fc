import type { ChunkText } from '../snapshot/index-snapshot.js';
import { COLUMN_WEIGHTS } from '../store/fts-column-weights.js';

const K1 = 1.2;
const B = 0.75;

/**
 * Scores chunks by how often they contain the needles (case-insensitive
 * substrings), with BM25's saturation and length normalization per column and
 * the same column weights as the FTS5 ranking; lengths are in characters and
 * averaged over the given chunks. Used where FTS5 cannot rank: queries under
 * one trigram, and re-ranking a bounded candidate set. Returns the chunks
 * that contain at least one needle, best first, ties by chunk id.
 */
export function rankByContainment(needles: readonly string[], chunks: readonly ChunkText[]): number[] {
  const lowered = needles.map((n) => n.toLowerCase()).filter((n) => n.length > 0);
  const columns = ['title', 'heading', 'body'] as const;
  const texts = chunks.map((chunk) => columns.map((column) => chunk[column].toLowerCase()));
  const averages = columns.map((_, c) => Math.max(1, mean(texts.map((t) => (t[c] ?? '').length))));
  const scored = chunks.map((chunk, i) => {
    let score = 0;
    columns.forEach((column, c) => {
      const text = texts[i]?.[c] ?? '';
      const lengthFactor = 1 - B + (B * text.length) / (averages[c] ?? 1);
      for (const needle of lowered) {
        const tf = occurrences(text, needle);
        if (tf > 0) score += COLUMN_WEIGHTS[column] * ((tf * (K1 + 1)) / (tf + K1 * lengthFactor));
      }
    });
    return { chunkId: chunk.chunkId, score };
  });
  return scored
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score || a.chunkId - b.chunkId)
    .map((s) => s.chunkId);
}

function occurrences(text: string, needle: string): number {
  let count = 0;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) count += 1;
  return count;
}

function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((sum, v) => sum + v, 0) / values.length;
}
