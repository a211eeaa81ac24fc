import type { QueryTerm } from '../lexical/query-terms.js';
import { rangesFor } from '../vectors/vector-scan.js';
import { Bm25Ranking, type SegmentedPhrase } from './bm25-ranking.js';
import type { Fts5Mirror } from './fts5-mirror.js';
import type { Fts5Totals } from './fts5-totals.js';
import { termNeighbours } from './term-neighbours.js';
import type { TermRange } from './word-postings.js';
import type { ChunkScope, RankedChunk, WordRanking } from './word-ranking.js';
import type { WordSegment } from './word-segment.js';

const NO_TERMS: TermRange = { first: 0, end: 0 };

/** A term of the index near a misspelt word (`MemoryWords.nearestTerms`). */
export interface NearestTerm {
  readonly term: string;
  readonly documentFrequency: number;
  /** The best chunk in scope holding the term: where the word it stands for is read. */
  readonly chunkId: number;
}

/**
 * The word tier ranked from the postings in memory (docs/retrieval.md#lexical-leg),
 * over every segment of one state of the index, with the result of
 * `ORDER BY bm25(chunks_words, 3, 2, 1) LIMIT k` over the whole word table:
 * the query's terms are tokenized by FTS5 itself, each one is an FTS5 phrase
 * (two query terms that stem alike count twice, as in SQLite), document
 * frequencies count the live rows of all segments, FTS5's own totals give N
 * and the average length, and the filter applies before the cut.
 */
export class MemoryWords {
  private readonly bm25: Bm25Ranking;

  constructor(
    readonly segments: readonly WordSegment[],
    readonly totals: Fts5Totals,
    private readonly mirror: Fts5Mirror,
  ) {
    this.bm25 = new Bm25Ranking(segments, totals, (x) => mirror.naturalLog(x));
  }

  /**
   * The ranking of these terms; undefined when FTS5 makes several tokens of
   * one of them (a phrase, which needs positions: where JavaScript's and
   * SQLite's Unicode tables class a character differently), so that the
   * caller ranks that query in SQLite.
   */
  wordRanking(terms: readonly QueryTerm[]): WordRanking | undefined {
    const tokens = this.mirror.tokens(terms.map((term) => term.text));
    const phrases = new Map<QueryTerm, SegmentedPhrase>();
    for (const [i, term] of terms.entries()) {
      const found = tokens[i] ?? [];
      if (found.length > 1) return undefined;
      const token = found[0];
      phrases.set(
        term,
        this.segments.map((segment) => (token === undefined ? NO_TERMS : segment.postings.range(token, term.prefix))),
      );
    }
    const phraseOf = (term: QueryTerm): SegmentedPhrase => {
      const phrase = phrases.get(term);
      if (phrase === undefined) throw new Error(`term ${term.text} is not one of the query's`);
      return phrase;
    };
    return {
      scoring: 'memory',
      documentFrequency: (term) => this.bm25.documentFrequency(phraseOf(term)),
      rank: (chosen, scope, limit) => this.rank(chosen.map(phraseOf), scope, limit),
    };
  }

  /**
   * The terms of live rows nearest to the term FTS5 makes of `word`, within
   * `maxEdits` (docs/retrieval.md#typos), each with its document frequency
   * and the best chunk in scope holding it, most frequent first. None when
   * `word` makes no single term; a term held only by deleted rows or out of
   * scope is no candidate.
   */
  nearestTerms(word: string, maxEdits: number, scope: ChunkScope): NearestTerm[] {
    const [tokens] = this.mirror.tokens([word]);
    const token = tokens?.length === 1 ? tokens[0] : undefined;
    if (token === undefined) return [];
    let best = maxEdits + 1;
    const terms = new Set<string>();
    for (const segment of this.segments) {
      for (const near of termNeighbours(segment.postings).nearest(token, Math.min(best, maxEdits))) {
        if (near.distance < best) {
          best = near.distance;
          terms.clear();
        }
        terms.add(near.term);
      }
    }
    const found: NearestTerm[] = [];
    for (const term of terms) {
      const phrase = this.segments.map((segment) => segment.postings.range(term, false));
      const [chunk] = this.rank([phrase], scope, 1);
      if (chunk !== undefined)
        found.push({ term, documentFrequency: this.bm25.documentFrequency(phrase), chunkId: chunk.chunkId });
    }
    return found.sort((a, b) => b.documentFrequency - a.documentFrequency || (a.term < b.term ? -1 : 1));
  }

  /**
   * Whether some row may match the phrase of these terms in a row: one that
   * holds every token FTS5 makes of them (the last as a prefix when it is
   * one), deleted or not. A phrase matches no other row, so without one the
   * phrase query need not be asked of SQLite (docs/retrieval.md#lexical-leg).
   */
  mayMatchPhrase(sequence: readonly QueryTerm[]): boolean {
    const [tokens = []] = this.mirror.tokens([sequence.map((term) => term.text).join(' ')]);
    const prefix = sequence[sequence.length - 1]?.prefix === true;
    return this.segments.some(({ postings }) =>
      postings.someRowHoldsAll(
        tokens
          .map((token, i) => postings.range(token, prefix && i === tokens.length - 1))
          .sort((a, b) => postings.postingCount(a) - postings.postingCount(b)),
      ),
    );
  }

  /** FTS5's tokens of each text. */
  tokensOf(texts: readonly string[]): (readonly string[])[] {
    return this.mirror.tokens(texts);
  }

  private rank(phrases: readonly SegmentedPhrase[], scope: ChunkScope, limit: number): RankedChunk[] {
    const rangesOf = (s: number) => {
      const rows = this.segments[s]?.rows;
      if (rows === undefined) return [];
      return scope.narrowed?.rangesIn(rows) ?? rangesFor(rows, scope.vaults, scope.namespaces);
    };
    return this.bm25.rank(phrases, rangesOf, limit).map(({ chunkId, score }) => ({ chunkId, bm25: -score }));
  }
}
