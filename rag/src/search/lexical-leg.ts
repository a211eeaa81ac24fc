import { anyOf, phraseExpression, quote } from '../lexical/fts-query.js';
import { MAX_QUERY_TERMS, type QueryTerm, type QueryTerms, queryTerms } from '../lexical/query-terms.js';
import { TOKEN } from '../lexical/scripts.js';
import { isCorrectable, maxEditsFor, nearestWords, spelledAs, trigramsOf } from '../lexical/typos.js';
import type { LexicalTables } from '../snapshot/lexical-tables.js';
import type { ChunkScope, RankedChunk, WordRanking, WordScoring } from '../words/word-ranking.js';

/** The tiers of the lexical ranking, in rank order (docs/retrieval.md#lexical-leg). */
export type LexicalTier = 'phrase' | 'words' | 'substrings';

/** A query word the index does not hold, and the word of the index searched for instead (docs/retrieval.md#typos). */
export interface Correction {
  readonly from: string;
  readonly to: string;
}

export interface LexicalResult {
  /** Chunk ids, best first, at most the depth asked for. */
  readonly chunkIds: readonly number[];
  /** Each chunk's −bm25 in the tier that listed it (higher is better; tiers have their own scales). */
  readonly scores: readonly number[];
  /** The tiers that contributed (for the response header and tests). */
  readonly tiers: readonly LexicalTier[];
  /** Where the word tier's frequencies and ranking were computed (docs/retrieval.md#snapshots). */
  readonly wordScoring: WordScoring;
  /** The query words taken for typos, in query order, and what was searched instead. */
  readonly corrections: readonly Correction[];
}

export type LexicalSource = Pick<
  LexicalTables,
  | 'layout'
  | 'rowCount'
  | 'wordRanking'
  | 'rankWords'
  | 'rankSubstrings'
  | 'substringFrequency'
  | 'chunkTexts'
  | 'nearestTerms'
  | 'termOf'
  | 'mayMatchPhrase'
  | 'holdsSubstring'
>;

/** Chunks the trigram table offers for one misspelt word: where its nearest words are looked for. */
const CORRECTION_CHUNKS = 20;
/**
 * The misspelt word's trigrams asked of the trigram table, the rarest: ranking an OR of common ones
 * (`ent`, `ion`) scores most of the table, and a typo leaves most of a word's rare trigrams intact.
 */
const RAREST_TRIGRAMS = 4;
/**
 * The rest of the query's rarest words that find the chunks a typo is read against: they say what the
 * query is about, and ranking a long query's common words too costs more than the rest of the search.
 */
const CONTEXT_TERMS = 8;
/** Ours: an input bound; a query with more unknown words than this is not a few typos. */
const MAX_CORRECTIONS = 4;

/** The trigram tokenizer indexes three-character windows: a shorter substring matches nothing. */
const TRIGRAM_LENGTH = 3;

/**
 * The lexical leg: the first `depth` chunks of one ranking, computed tier by
 * tier (docs/retrieval.md#lexical-leg), each tier ranked by FTS5 BM25 with
 * the filter applied before the cut (the word tier from memory once the
 * snapshot's word index is ready, with the same result):
 *
 * 1. chunks holding the query's terms as a phrase (an exact phrase or an
 *    identifier such as `DEC-0054` ranks first);
 * 2. chunks holding any informative term, OR semantics;
 * 3. while fewer than `depth` are listed: chunks holding a query word as a
 *    substring (trigram table), so `snapshot` finds `IndexSnapshot`.
 *
 * A later tier only appends chunks not listed yet, so the result never depends
 * on how many chunks the index holds, only on their ranking.
 */
export function lexicalLeg(query: string, depth: number, source: LexicalSource, scope: ChunkScope): LexicalResult {
  // The trigram table comes with the n-gram word table; the fallback layout has neither.
  const trigrams = source.layout === 'words+trigram';
  const asked = queryTerms(query, { ngrams: trigrams });
  const corrections = trigrams ? correctTypos(asked, source, scope) : [];
  const analysed = corrections.length > 0 ? queryTerms(corrected(query, corrections), { ngrams: true }) : asked;
  const listed = new Map<number, number>();
  const tiers: LexicalTier[] = [];
  const append = (tier: LexicalTier, ranked: readonly RankedChunk[]) => {
    const before = listed.size;
    for (const { chunkId, bm25 } of ranked) {
      if (listed.size >= depth) break;
      // FTS5's bm25() is lower for better matches.
      if (!listed.has(chunkId)) listed.set(chunkId, -bm25);
    }
    if (listed.size > before) tiers.push(tier);
  };
  const phrase = phraseExpression(analysed, MAX_QUERY_TERMS);
  if (phrase !== undefined && source.mayMatchPhrase(analysed.sequence)) {
    append('phrase', source.rankWords(phrase, scope, depth));
  }
  const words = source.wordRanking(analysed.terms);
  const { informative, substrings } = selectTerms(analysed.terms, source.rowCount, words);
  if (informative.length > 0 && listed.size < depth) append('words', words.rank(informative, scope, depth));
  if (listed.size < depth && trigrams && substrings.length > 0) {
    append('substrings', source.rankSubstrings(anyOf(substrings.map(quote)), scope, depth + listed.size));
  }
  return { chunkIds: [...listed.keys()], scores: [...listed.values()], tiers, corrections, wordScoring: words.scoring };
}

/**
 * docs/retrieval.md#typos: a query word that the index holds neither as a word
 * nor as a substring finds nothing, so it is taken for a typo of the nearest
 * word (within one or two edits) of the chunks the rest of the query's rarest
 * words find, else of the index's word lists (in memory; without them, of the
 * chunks that share most of its rarest trigrams), the most frequent one where
 * several are as near.
 */
function correctTypos(analysed: QueryTerms, source: LexicalSource, scope: ChunkScope): Correction[] {
  const words = source.wordRanking(analysed.terms);
  const unknown = analysed.terms.filter(
    (term) =>
      term.kind === 'word' &&
      isCorrectable(term.text) &&
      words.documentFrequency(term) === 0 &&
      !source.holdsSubstring(quote(term.text), scope),
  );
  if (unknown.length === 0) return [];
  // The chunks the rest of the query's rarest words find hold the words it is about (`tmux renmae
  // session`: rename).
  const known = analysed.terms
    .map((term) => ({ term, frequency: words.documentFrequency(term) }))
    .filter((counted) => counted.frequency > 0)
    .sort((a, b) => a.frequency - b.frequency)
    .slice(0, CONTEXT_TERMS)
    .map((counted) => counted.term);
  const context = known.length > 0 ? words.rank(known, scope, CORRECTION_CHUNKS) : [];
  const contextTexts = context.length > 0 ? source.chunkTexts(context.map((chunk) => chunk.chunkId)) : [];
  return unknown.slice(0, MAX_CORRECTIONS).flatMap((term) => {
    // The word lists are asked only when the context holds no word near enough, the trigram table only
    // without them: its OR of trigrams scores every chunk holding a common one.
    const inContext = nearestWords(term.text, contextTexts);
    const nearest =
      inContext.length > 0
        ? inContext
        : (nearestInWordLists(term.text, source, scope) ?? nearestInTrigramChunks(term.text, source, scope));
    const candidates = nearest.map((text): QueryTerm => ({ text, prefix: false, kind: 'word' }));
    const counts = source.wordRanking(candidates);
    const best = candidates
      .map((candidate) => ({ text: candidate.text, frequency: counts.documentFrequency(candidate) }))
      .sort((a, b) => b.frequency - a.frequency || (a.text < b.text ? -1 : 1))[0];
    return best && best.frequency > 0 ? [{ from: term.text, to: best.text }] : [];
  });
}

/**
 * The word of the index's word lists nearest to `word` (docs/retrieval.md#typos): of the nearest terms,
 * the most frequent that a chunk in scope spells out; undefined without an in-memory word index.
 */
function nearestInWordLists(word: string, source: LexicalSource, scope: ChunkScope): string[] | undefined {
  const near = source.nearestTerms(word, maxEditsFor([...word].length), scope);
  if (near === undefined) return undefined;
  for (const { term, chunkId } of near) {
    const spelled = spelledAs(source.chunkTexts([chunkId]), (candidate) => source.termOf(candidate) === term, word);
    if (spelled !== undefined) return [spelled];
  }
  return [];
}

/** The nearest words of the chunks that share most of the word's rarest trigrams (the fallback layout has none). */
function nearestInTrigramChunks(word: string, source: LexicalSource, scope: ChunkScope): string[] {
  const rarest = trigramsOf(word)
    .map((trigram) => ({ trigram, chunks: source.substringFrequency(quote(trigram)) }))
    .filter((t) => t.chunks > 0)
    .sort((a, b) => a.chunks - b.chunks)
    .slice(0, RAREST_TRIGRAMS);
  if (rarest.length === 0) return [];
  const offered = source.rankSubstrings(anyOf(rarest.map((t) => quote(t.trigram))), scope, CORRECTION_CHUNKS);
  return nearestWords(word, source.chunkTexts(offered.map((chunk) => chunk.chunkId)));
}

/** The query with each corrected word replaced (every occurrence, any case). */
function corrected(query: string, corrections: readonly Correction[]): string {
  const to = new Map(corrections.map((c) => [c.from.toLowerCase(), c.to]));
  return query.replace(TOKEN, (token) => to.get(token.toLowerCase()) ?? token);
}

/**
 * The terms that carry BM25 evidence, and the words worth a substring search.
 * FTS5 clamps the IDF of a term found in at least half the rows to 1e-6, so
 * dropping such terms moves no score by more than that and only loses chunks
 * that match nothing else (scored ~0): the ranking's meaning is unchanged,
 * and a query full of stop words no longer scores most of the table. When
 * every matching term is that common, they are all kept (a small index, or a
 * query of stop words). Terms that match nothing are dropped from the word
 * tier but may still be substrings (`snapshot` in `IndexSnapshot`).
 */
function selectTerms(
  terms: readonly QueryTerm[],
  rowCount: number,
  words: Pick<WordRanking, 'documentFrequency'>,
): { informative: QueryTerm[]; substrings: string[] } {
  const counted = terms.map((term) => ({ term, frequency: words.documentFrequency(term) }));
  const uncommon = counted.filter((c) => 2 * c.frequency < rowCount);
  const matching = counted.filter((c) => c.frequency > 0);
  const informative = uncommon.filter((c) => c.frequency > 0);
  // Unspaced runs are n-grams in the word table already; a word under three characters has no trigram.
  const substrings = uncommon
    .filter((c) => c.term.kind === 'word' && [...c.term.text].length >= TRIGRAM_LENGTH)
    .map((c) => c.term.text);
  return {
    informative: (informative.length > 0 ? informative : matching).map((c) => c.term),
    substrings: [...new Set(substrings)],
  };
}
