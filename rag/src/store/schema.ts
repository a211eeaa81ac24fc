import type Database from 'better-sqlite3';

/** `PRAGMA user_version` of the index format this code writes and reads. */
export const SCHEMA_VERSION = 1;

export type FtsTokenizer = 'trigram' | 'unicode61';

/** FTS5 tokenizer arguments per mode. */
const TOKENIZE: Record<FtsTokenizer, string> = {
  // Case-insensitive by default; substrings of 3+ characters match (CJK, inflected words).
  trigram: 'trigram',
  unicode61: 'unicode61 remove_diacritics 2',
};

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

/** External-content FTS kept in step with \`chunks\` by triggers, inside the same transaction. */
function ftsTable(tokenizer: FtsTokenizer): string {
  return `
CREATE VIRTUAL TABLE chunks_fts USING fts5 (
  title, heading, body,
  content = 'chunks', content_rowid = 'id',
  tokenize = '${TOKENIZE[tokenizer]}'
);
CREATE TRIGGER chunks_fts_insert AFTER INSERT ON chunks BEGIN
  INSERT INTO chunks_fts (rowid, title, heading, body) VALUES (new.id, new.title, new.heading, new.body);
END;
CREATE TRIGGER chunks_fts_delete AFTER DELETE ON chunks BEGIN
  INSERT INTO chunks_fts (chunks_fts, rowid, title, heading, body)
  VALUES ('delete', old.id, old.title, old.heading, old.body);
END;`;
}

/**
 * Creates every table; call inside `BEGIN IMMEDIATE`. docs/retrieval.md#index-format: the
 * trigram tokenizer is detected by trying it, never assumed.
 */
export function createSchema(db: Database.Database, preferred: 'auto' | 'unicode61'): FtsTokenizer {
  db.exec(TABLES);
  let tokenizer: FtsTokenizer = 'unicode61';
  if (preferred === 'auto') {
    try {
      db.exec(ftsTable('trigram'));
      tokenizer = 'trigram';
    } catch {
      tokenizer = 'unicode61';
    }
  }
  if (tokenizer === 'unicode61') db.exec(ftsTable('unicode61'));
  db.pragma(`user_version = ${SCHEMA_VERSION}`);
  return tokenizer;
}

/** Drops everything `createSchema` made (for `--rebuild`); call inside `BEGIN IMMEDIATE`. */
export function dropSchema(db: Database.Database): void {
  db.exec(`
DROP TRIGGER IF EXISTS chunks_fts_insert;
DROP TRIGGER IF EXISTS chunks_fts_delete;
DROP TABLE IF EXISTS chunks_fts;
DROP TABLE IF EXISTS chunk_vectors;
DROP TABLE IF EXISTS chunks;
DROP TABLE IF EXISTS files;
DROP TABLE IF EXISTS meta;`);
  db.pragma('user_version = 0');
}
