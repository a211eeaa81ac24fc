/** BM25 parameters (Robertson & Zaragoza 2009, the usual defaults). */
const K1 = 1.2;
const B = 0.75;
/** BM25F field weights: a term in the title counts three times a term in the body. */
export const TITLE_WEIGHT = 3;
export const BODY_WEIGHT = 1;

interface FieldFrequencies {
  title: number;
  body: number;
}

interface IndexedDocument {
  readonly titleLength: number;
  readonly bodyLength: number;
  readonly terms: readonly string[];
}

export interface ScoredDocument {
  readonly id: string;
  readonly score: number;
}

/**
 * An in-memory inverted index scored with BM25F (per-field length
 * normalisation, field-weighted term frequency, one saturation). Pure data
 * structure: no I/O, terms come in already normalised.
 */
export class Bm25Index {
  readonly #documents = new Map<string, IndexedDocument>();
  readonly #postings = new Map<string, Map<string, FieldFrequencies>>();
  #totalTitleLength = 0;
  #totalBodyLength = 0;

  get size(): number {
    return this.#documents.size;
  }

  upsert(id: string, titleTerms: readonly string[], bodyTerms: readonly string[]): void {
    this.remove(id);
    const frequencies = new Map<string, FieldFrequencies>();
    for (const term of titleTerms) fieldOf(frequencies, term).title++;
    for (const term of bodyTerms) fieldOf(frequencies, term).body++;
    for (const [term, counts] of frequencies) {
      let posting = this.#postings.get(term);
      if (!posting) {
        posting = new Map();
        this.#postings.set(term, posting);
      }
      posting.set(id, counts);
    }
    this.#documents.set(id, {
      titleLength: titleTerms.length,
      bodyLength: bodyTerms.length,
      terms: [...frequencies.keys()],
    });
    this.#totalTitleLength += titleTerms.length;
    this.#totalBodyLength += bodyTerms.length;
  }

  remove(id: string): void {
    const document = this.#documents.get(id);
    if (!document) return;
    for (const term of document.terms) {
      const posting = this.#postings.get(term);
      posting?.delete(id);
      if (posting?.size === 0) this.#postings.delete(term);
    }
    this.#documents.delete(id);
    this.#totalTitleLength -= document.titleLength;
    this.#totalBodyLength -= document.bodyLength;
  }

  /** Documents matching at least one term, best first (ties: id order, so results are stable). */
  search(terms: readonly string[]): ScoredDocument[] {
    const count = this.#documents.size;
    if (count === 0) return [];
    const averageTitle = Math.max(this.#totalTitleLength / count, 1);
    const averageBody = Math.max(this.#totalBodyLength / count, 1);
    const scores = new Map<string, number>();
    for (const term of new Set(terms)) {
      const posting = this.#postings.get(term);
      if (!posting) continue;
      const idf = Math.log(1 + (count - posting.size + 0.5) / (posting.size + 0.5));
      for (const [id, counts] of posting) {
        const document = this.#documents.get(id);
        if (!document) continue;
        const weighted =
          (TITLE_WEIGHT * counts.title) / (1 - B + (B * document.titleLength) / averageTitle) +
          (BODY_WEIGHT * counts.body) / (1 - B + (B * document.bodyLength) / averageBody);
        scores.set(id, (scores.get(id) ?? 0) + (idf * weighted) / (K1 + weighted));
      }
    }
    return [...scores]
      .map(([id, score]) => ({ id, score }))
      .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
  }
}

function fieldOf(frequencies: Map<string, FieldFrequencies>, term: string): FieldFrequencies {
  let counts = frequencies.get(term);
  if (!counts) {
    counts = { title: 0, body: 0 };
    frequencies.set(term, counts);
  }
  return counts;
}
