import type Database from 'better-sqlite3';
import type { QueryTerm } from '../lexical/query-terms.js';
import type { LexicalLayout } from '../store/schema.js';
import { Fts5Table } from '../words/fts5-table.js';
import type { MemoryWords, NearestTerm } from '../words/memory-words.js';
import { SqliteWords } from '../words/sqlite-words.js';
import type { ChunkScope, RankedChunk, WordRanking, WordScoring } from '../words/word-ranking.js';

const MAX_CACHED_SUBSTRING_COUNTS = 10_000;

/**
 * The full-text side of one snapshot: the word table, ranked in SQLite or,
 * once the in-memory word index is ready for this snapshot's state, from
 * memory with the same result; and the trigram table for substrings.
 */
export class LexicalTables {
  readonly #words: SqliteWords;
  readonly #trigrams: Fts5Table | undefined;
  readonly #texts: Database.Statement;
  readonly #substringCount: Database.Statement | undefined;
  /** A snapshot's counts never change; a bound keeps a stream of distinct typos from growing it. */
  readonly #substringCounts = new Map<string, number>();

  constructor(
    db: Database.Database,
    readonly layout: LexicalLayout,
    /** Rows of the full-text tables (one per chunk): N in FTS5's IDF. */
    readonly rowCount: number,
    /** The in-memory word index once it is ready for this snapshot's state (docs/retrieval.md#snapshots). */
    private readonly memory: () => MemoryWords | undefined = () => undefined,
  ) {
    this.#words = new SqliteWords(db);
    this.#trigrams = layout === 'words+trigram' ? new Fts5Table(db, 'chunks_trigram') : undefined;
    this.#texts = db
      .prepare(
        'SELECT title || char(10) || heading || char(10) || body FROM chunks WHERE id IN (SELECT value FROM json_each(?))',
      )
      .pluck();
    this.#substringCount =
      layout === 'words+trigram'
        ? db.prepare('SELECT count(*) FROM chunks_trigram WHERE chunks_trigram MATCH ?').pluck()
        : undefined;
  }

  /** Where the word tier is ranked now. */
  get scoring(): WordScoring {
    return this.memory() ? 'memory' : 'sqlite';
  }

  /**
   * The word tier for these query terms: from memory once the in-memory index
   * is ready and FTS5 makes one token of every term, else in SQLite; both
   * give the same frequencies and the same ranking.
   */
  wordRanking(terms: readonly QueryTerm[]): WordRanking {
    return this.memory()?.wordRanking(terms) ?? this.#words.ranking;
  }

  /** Chunks matching a word-table expression: what FTS5 counts for that term's IDF. */
  documentFrequency(expression: string): number {
    return this.#words.documentFrequency(expression);
  }

  /** The best `limit` chunks in scope for a word-table expression. */
  rankWords(expression: string, scope: ChunkScope, limit: number): RankedChunk[] {
    return this.#words.rank(expression, scope, limit);
  }

  /** The title field, heading trail and text of each chunk (in no particular order): words a typo may mean. */
  chunkTexts(chunkIds: readonly number[]): string[] {
    return this.#texts.all(JSON.stringify(chunkIds)).map(String);
  }

  /**
   * The index's terms nearest to a misspelt word, from the in-memory word
   * index's word lists (docs/retrieval.md#typos); undefined until that index
   * is ready for this state, where the trigram table is asked instead.
   */
  nearestTerms(word: string, maxEdits: number, scope: ChunkScope): NearestTerm[] | undefined {
    return this.memory()?.nearestTerms(word, maxEdits, scope);
  }

  /** Whether the phrase of these terms may match a chunk: asked of the in-memory word index, else yes. */
  mayMatchPhrase(sequence: readonly QueryTerm[]): boolean {
    return this.memory()?.mayMatchPhrase(sequence) ?? true;
  }

  /** The one term the word table makes of `word` (asked of the in-memory index's tokenizer; undefined without it). */
  termOf(word: string): string | undefined {
    const [tokens] = this.memory()?.tokensOf([word]) ?? [];
    return tokens?.length === 1 ? tokens[0] : undefined;
  }

  /** Chunks holding a trigram-table expression (a substring); 0 in the fallback layout. */
  substringFrequency(expression: string): number {
    if (this.#substringCount === undefined) return 0;
    let count = this.#substringCounts.get(expression);
    if (count === undefined) {
      count = Number(this.#substringCount.get(expression));
      if (this.#substringCounts.size >= MAX_CACHED_SUBSTRING_COUNTS) this.#substringCounts.clear();
      this.#substringCounts.set(expression, count);
    }
    return count;
  }

  /** Whether a chunk in scope holds a trigram-table expression (a substring); no in the fallback layout. */
  holdsSubstring(expression: string, scope: ChunkScope): boolean {
    return this.#trigrams?.holds(expression, scope) ?? false;
  }

  /** The same over the trigram table (substrings); nothing in the fallback layout. */
  rankSubstrings(expression: string, scope: ChunkScope, limit: number): RankedChunk[] {
    return this.#trigrams?.rank(expression, scope, limit) ?? [];
  }
}
