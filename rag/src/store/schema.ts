import type Database from 'better-sqlite3';

/**
 * `PRAGMA user_version` of the index format this code writes and reads
 * (docs/retrieval.md#index-format). 2: the word table and the trigram table
 * replaced the single full-text table of 1. 3: the same tables, but every note
 * has a chunk and a note's frontmatter tags are full-text terms of its title
 * field. 4: the change log of the chunks.
 */
export const SCHEMA_VERSION = 4;

/**
 * The older formats a writer upgrades in place (`upgradeSchema`), each with
 * what its upgrade costs, as a reader that finds one says it; anything older
 * needs `--rebuild` (docs/retrieval.md#index-format).
 */
export const UPGRADABLE_VERSIONS: ReadonlyMap<number, string> = new Map([
  [2, 'the notes with tags or without a chunk are indexed again'],
  [3, 'nothing is indexed again'],
]);

/**
 * The full-text tables (docs/retrieval.md#lexical-leg). `words+trigram`: the
 * word table holds unspaced scripts as n-grams (contentless, written by the
 * store) beside a trigram table for substrings. `words`: the fallback where
 * SQLite lacks the trigram tokenizer or contentless deletes (before 3.45):
 * the word table alone, over the chunks' own text.
 */
export type LexicalLayout = 'words+trigram' | 'words';

/**
 * The word table's tokenizer: case and diacritics folded, English suffixes
 * stemmed (porter leaves other scripts alone); letters, numbers, private use
 * and combining marks are term characters (without marks, Hindi or Thai words
 * fall apart at every vowel sign).
 */
export const WORDS_TOKENIZE = "porter unicode61 remove_diacritics 2 categories 'L* N* Co M*'";
export const TRIGRAM_TOKENIZE = 'trigram remove_diacritics 1';

/**
 * Ours: FTS5's `hashsize`, the pending terms a full-text table holds in memory before it writes them
 * out as a new segment (and does the merge work that write calls for) inside the statement that
 * crosses it, and at the latest at COMMIT. FTS5's default, 1 MiB, made single steps of a large note's
 * index run hold the event loop for 40-60 ms; at 64 KiB one such write is about a sixteenth of that
 * (docs/retrieval.md#index-runs). What a search finds and how it ranks do not depend on it.
 */
export const FTS5_HASH_BYTES = 64 * 1024;

/** The full-text tables of a layout. */
function fullTextTables(layout: LexicalLayout): readonly string[] {
  return layout === 'words+trigram' ? ['chunks_words', 'chunks_trigram'] : ['chunks_words'];
}

/**
 * Puts FTS5_HASH_BYTES in force in every full-text table of `layout` (stored in the table's own
 * config, so every writer connection uses it); writes only where it differs. Call inside
 * `BEGIN IMMEDIATE`.
 */
export function applyFullTextSettings(db: Database.Database, layout: LexicalLayout): void {
  for (const table of fullTextTables(layout)) {
    const current = db.prepare(`SELECT v FROM ${table}_config WHERE k = 'hashsize'`).pluck().get();
    if (current === FTS5_HASH_BYTES) continue;
    // A literal: FTS5 takes only an integer, and a bound JavaScript number arrives as a real.
    db.exec(`INSERT INTO ${table} (${table}, rank) VALUES ('hashsize', ${FTS5_HASH_BYTES})`);
  }
}

const TABLES = `
CREATE TABLE meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
) STRICT;

CREATE TABLE files (
  id             INTEGER PRIMARY KEY,
  vault          TEXT    NOT NULL,
  path           TEXT    NOT NULL,
  namespace      TEXT    NOT NULL,
  title          TEXT    NOT NULL,
  aliases        TEXT    NOT NULL,
  tags           TEXT    NOT NULL,
  mtime_ms       REAL    NOT NULL,
  size_bytes     INTEGER NOT NULL,
  content_sha256 TEXT    NOT NULL,
  fingerprint    TEXT    NOT NULL,
  chunk_count    INTEGER NOT NULL,
  indexed_at_ms  INTEGER NOT NULL,
  UNIQUE (vault, path)
) STRICT;

CREATE TABLE chunks (
  id          INTEGER PRIMARY KEY,
  file_id     INTEGER NOT NULL REFERENCES files (id) ON DELETE CASCADE,
  vault       TEXT    NOT NULL,
  namespace   TEXT    NOT NULL,
  seq         INTEGER NOT NULL,
  title       TEXT    NOT NULL,
  heading     TEXT    NOT NULL,
  body        TEXT    NOT NULL,
  line_start  INTEGER NOT NULL,
  line_end    INTEGER NOT NULL,
  token_count INTEGER NOT NULL,
  UNIQUE (file_id, seq)
) STRICT;
CREATE INDEX chunks_by_vault_namespace ON chunks (vault, namespace);

CREATE TABLE chunk_vectors (
  chunk_id  INTEGER PRIMARY KEY REFERENCES chunks (id) ON DELETE CASCADE,
  embedding BLOB    NOT NULL
) STRICT;
`;

/**
 * The change log (docs/retrieval.md#index-format): every chunk added or
 * removed, in commit order, written by triggers in the transaction that
 * changes the chunk, so that every writer keeps it and a reader learns what
 * changed between two states from the log alone. AUTOINCREMENT: a sequence
 * number is never used twice, even after the newest entries are pruned.
 */
export const CHANGE_LOG = `
CREATE TABLE chunk_changes (
  seq      INTEGER PRIMARY KEY AUTOINCREMENT,
  chunk_id INTEGER NOT NULL,
  added    INTEGER NOT NULL
) STRICT;
CREATE TRIGGER chunk_changes_added AFTER INSERT ON chunks BEGIN
  INSERT INTO chunk_changes (chunk_id, added) VALUES (new.id, 1);
END;
CREATE TRIGGER chunk_changes_removed AFTER DELETE ON chunks BEGIN
  INSERT INTO chunk_changes (chunk_id, added) VALUES (old.id, 0);
END;`;

/** A string literal of SQL. */
export const quoteSql = (text: string) => `'${text.replaceAll("'", "''")}'`;

/** An FTS5 table over the chunks' own title, heading and body, kept in step by triggers in the same transaction. */
function externalContentTable(name: string, tokenize: string): string {
  return `
CREATE VIRTUAL TABLE ${name} USING fts5 (
  title, heading, body,
  content = 'chunks', content_rowid = 'id',
  tokenize = ${quoteSql(tokenize)}
);
CREATE TRIGGER ${name}_insert AFTER INSERT ON chunks BEGIN
  INSERT INTO ${name} (rowid, title, heading, body) VALUES (new.id, new.title, new.heading, new.body);
END;
CREATE TRIGGER ${name}_delete AFTER DELETE ON chunks BEGIN
  INSERT INTO ${name} (${name}, rowid, title, heading, body) VALUES ('delete', old.id, old.title, old.heading, old.body);
END;`;
}

/**
 * The word table of the full layout: its text is the store's rewriting of the
 * chunk (unspaced scripts as n-grams), so it keeps no content of its own; a
 * deleted chunk's row goes by rowid (contentless_delete).
 */
const CONTENTLESS_WORDS = `
CREATE VIRTUAL TABLE chunks_words USING fts5 (
  title, heading, body,
  content = '', contentless_delete = 1,
  tokenize = ${quoteSql(WORDS_TOKENIZE)}
);
CREATE TRIGGER chunks_words_delete AFTER DELETE ON chunks BEGIN
  DELETE FROM chunks_words WHERE rowid = old.id;
END;`;

/**
 * Creates every table; call inside `BEGIN IMMEDIATE`. What SQLite supports is
 * found by trying it, never assumed; a failed try is rolled back to a savepoint.
 */
export function createSchema(db: Database.Database, preferred: 'auto' | 'words'): LexicalLayout {
  db.exec(TABLES + CHANGE_LOG);
  const full =
    preferred === 'auto' && tryExec(db, CONTENTLESS_WORDS + externalContentTable('chunks_trigram', TRIGRAM_TOKENIZE));
  if (!full) db.exec(externalContentTable('chunks_words', WORDS_TOKENIZE));
  const layout = full ? 'words+trigram' : 'words';
  applyFullTextSettings(db, layout);
  db.pragma(`user_version = ${SCHEMA_VERSION}`);
  return layout;
}

function tryExec(db: Database.Database, sql: string): boolean {
  db.exec('SAVEPOINT try_schema');
  try {
    db.exec(sql);
    db.exec('RELEASE try_schema');
    return true;
  } catch {
    db.exec('ROLLBACK TO try_schema');
    db.exec('RELEASE try_schema');
    return false;
  }
}

/**
 * Upgrades an index of format `from` (2 or 3) to this one in place, a step
 * per format in order; call inside `BEGIN IMMEDIATE`. The caller writes what
 * the upgrade adds to `meta`.
 *
 * - 2 to 3: the tables are the same; what differs is what a run writes for two
 *   kinds of note (one that had no chunk, one with tags), so their stored
 *   fingerprint is cleared and the next run re-reads, re-chunks and re-embeds
 *   exactly those.
 * - 3 to 4: adds the change log, empty. Nothing else changes, so nothing is
 *   embedded or indexed again; the log starts here: a reader that loaded the
 *   index before has to load it whole once more.
 */
export function upgradeSchema(db: Database.Database, from: number): void {
  if (from <= 2) db.exec("UPDATE files SET fingerprint = '' WHERE chunk_count = 0 OR tags <> '[]'");
  if (from <= 3) db.exec(CHANGE_LOG);
  db.pragma(`user_version = ${SCHEMA_VERSION}`);
}

/** Drops everything `createSchema` made, in any format version (for `--rebuild`); call inside `BEGIN IMMEDIATE`. */
export function dropSchema(db: Database.Database): void {
  const triggers = db.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger'").pluck().all();
  for (const name of triggers) db.exec(`DROP TRIGGER IF EXISTS "${String(name).replaceAll('"', '""')}"`);
  db.exec(`
DROP TABLE IF EXISTS chunks_fts;
DROP TABLE IF EXISTS chunks_words;
DROP TABLE IF EXISTS chunks_trigram;
DROP TABLE IF EXISTS chunk_changes;
DROP TABLE IF EXISTS chunk_vectors;
DROP TABLE IF EXISTS chunks;
DROP TABLE IF EXISTS files;
DROP TABLE IF EXISTS meta;`);
  db.pragma('user_version = 0');
}
