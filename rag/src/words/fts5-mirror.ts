import Database from 'better-sqlite3';
import { quoteSql, WORDS_TOKENIZE } from '../store/schema.js';

/** Texts whose tokens are remembered; a bound keeps a stream of distinct queries from growing it. */
const MAX_CACHED_TEXTS = 50_000;

/**
 * What FTS5 and SQLite compute, asked of SQLite itself, for the in-memory
 * word index (docs/retrieval.md#lexical-leg): the word table's tokens of a
 * text (case and diacritics folded, stemmed), read back from a contentless
 * table with the word table's tokenizer in a private in-memory database, and
 * SQLite's natural logarithm, the C library's that FTS5's bm25() calls.
 * Reimplementing either in JavaScript could differ from FTS5 in a corner.
 */
export class Fts5Mirror {
  private readonly db: Database.Database;
  private readonly insert: Database.Statement;
  private readonly read: Database.Statement;
  private readonly clear: Database.Statement;
  private readonly ln: Database.Statement;
  private readonly cache = new Map<string, readonly string[]>();

  constructor() {
    this.db = new Database(':memory:');
    try {
      this.db.exec(`
        CREATE VIRTUAL TABLE texts USING fts5 (text, content = '', tokenize = ${quoteSql(WORDS_TOKENIZE)});
        CREATE VIRTUAL TABLE text_tokens USING fts5vocab (texts, 'instance');`);
      this.insert = this.db.prepare('INSERT INTO texts (rowid, text) VALUES (?, ?)');
      this.read = this.db.prepare('SELECT doc, term FROM text_tokens ORDER BY doc, offset').raw();
      this.clear = this.db.prepare("INSERT INTO texts (texts) VALUES ('delete-all')");
      // Needs SQLite's math functions; without them the in-memory index is not used.
      this.ln = this.db.prepare('SELECT ln(?)').pluck();
    } catch (err) {
      this.db.close();
      throw err;
    }
  }

  /** The tokens FTS5 makes of each text, in order (none for a text of separators only); remembered per text. */
  tokens(texts: readonly string[]): (readonly string[])[] {
    const missing = [...new Set(texts.filter((text) => !this.cache.has(text)))];
    if (missing.length > 0) {
      const found = this.tokenize(missing);
      if (this.cache.size + missing.length > MAX_CACHED_TEXTS) this.cache.clear();
      for (const [i, text] of missing.entries()) this.cache.set(text, found[i] ?? []);
    }
    return texts.map((text) => this.cache.get(text) ?? []);
  }

  /**
   * The same for the texts of chunks (docs/retrieval.md#snapshots), not
   * remembered: each is tokenized once, when its segment is built.
   */
  tokenize(texts: readonly string[]): string[][] {
    const found = texts.map((): string[] => []);
    this.db.transaction(() => {
      for (const [i, text] of texts.entries()) this.insert.run(i + 1, text);
      for (const row of this.read.all()) {
        // fts5vocab reports the zero-length token (a lone combining mark, folded) as NULL.
        const [doc, term] = row as [number, string | null];
        found[doc - 1]?.push(term ?? '');
      }
      this.clear.run();
    })();
    return found;
  }

  naturalLog(x: number): number {
    return Number(this.ln.get(x));
  }

  close(): void {
    this.db.close();
  }
}

let shared: Fts5Mirror | undefined;

/** One per thread: the word table's tokenizer is the same in every index of this format. */
export function sharedFts5Mirror(): Fts5Mirror {
  shared ??= new Fts5Mirror();
  return shared;
}
