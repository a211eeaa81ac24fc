import type { QueryTerm } from '../lexical/query-terms.js';
import type { MemoryWords } from './memory-words.js';
import type { SqliteWords } from './sqlite-words.js';
import type { ChunkScope, RankedChunk } from './word-ranking.js';

/** As deep as a search ranks (the lexical leg's depth). */
const PROBE_DEPTH = 100;
const EVERYWHERE: ChunkScope = { vaults: undefined, namespaces: undefined };

/**
 * Asks the in-memory word index and SQLite the same questions and names the
 * first answer that differs (undefined: none), so that a platform where the
 * two compute differently (another C library's logarithm, a compiler that
 * fuses multiply-adds in FTS5's bm25()) falls back to SQLite instead of
 * ranking otherwise (docs/retrieval.md#lexical-leg). The probes: the two
 * terms around FTS5's IDF floor (half the rows), the median and the rarest
 * term, and a prefix; their document frequencies, their OR, and their OR
 * with one of them repeated (two phrases of one term count twice).
 */
export function differenceFromSqlite(memory: MemoryWords, sqlite: SqliteWords): string | undefined {
  const probes = probeTerms(memory);
  const first = probes[0];
  if (first === undefined) return undefined;
  const fromMemory = memory.wordRanking(probes);
  const fromSqlite = sqlite.ranking;
  if (fromMemory === undefined) return 'the tokens of its own terms';
  for (const term of probes) {
    if (fromMemory.documentFrequency(term) !== fromSqlite.documentFrequency(term)) {
      return `the document frequency of ${term.text}${term.prefix ? '*' : ''}`;
    }
  }
  for (const terms of [probes, [...probes, first]]) {
    const expected = fromSqlite.rank(terms, EVERYWHERE, PROBE_DEPTH);
    if (!sameRanking(fromMemory.rank(terms, EVERYWHERE, PROBE_DEPTH), expected)) {
      return `the ranking of ${terms.map((term) => `${term.text}${term.prefix ? '*' : ''}`).join(' OR ')}`;
    }
  }
  return undefined;
}

/** Probes from the terms of the first segment (the check runs on an index of one segment). */
function probeTerms(memory: MemoryWords): QueryTerm[] {
  const postings = memory.segments[0]?.postings;
  if (postings === undefined) return [];
  const frequencyOf = (t: number) => postings.postingCount({ first: t, end: t + 1 });
  const byFrequency = postings.terms.map((_, t) => t).sort((a, b) => frequencyOf(a) - frequencyOf(b));
  const floor = byFrequency.findIndex((t) => 2 * frequencyOf(t) >= memory.totals.rows);
  const picks = [floor, floor - 1, byFrequency.length >> 1, 0]
    .map((i) => postings.terms[byFrequency[i] ?? -1])
    .filter((text): text is string => text !== undefined);
  const probes = [...new Set(picks)].map((text) => word(text, false));
  const median = postings.terms[byFrequency[byFrequency.length >> 1] ?? -1];
  if (median !== undefined && [...median].length > 1) probes.push(word([...median][0] ?? '', true));
  // A term FTS5 would tokenize into something else (porter is not idempotent) asks another question.
  const tokens = memory.tokensOf(probes.map((probe) => probe.text));
  return probes.filter((probe, i) => tokens[i]?.length === 1 && tokens[i]?.[0] === probe.text);
}

function word(text: string, prefix: boolean): QueryTerm {
  return { text, prefix, kind: 'word' };
}

/** Same chunks in the same order with the same scores, to the last bit. */
function sameRanking(a: readonly RankedChunk[], b: readonly RankedChunk[]): boolean {
  return a.length === b.length && a.every((hit, i) => hit.chunkId === b[i]?.chunkId && Object.is(hit.bm25, b[i]?.bm25));
}
