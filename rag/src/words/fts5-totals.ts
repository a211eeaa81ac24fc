import type Database from 'better-sqlite3';

/**
 * Rows and tokens as FTS5's totals count them (bm25's N, and N × the average
 * length), in one state of the index. A contentless table never takes a
 * deleted row out of its totals; the external-content table of the fallback
 * layout does.
 */
export interface Fts5Totals {
  readonly rows: number;
  readonly tokens: number;
}

/**
 * FTS5's totals of the word table, which bm25() reads: its "averages" record
 * (row 1 of the table's `_data` shadow table), a varint row count followed by
 * a varint token count per column, in SQLite's varint format. There is no SQL
 * to ask FTS5 for them, and counting live rows is not the same. The probe
 * queries would catch a change of this record's format (word-index-check.ts).
 */
export function readFts5Totals(db: Database.Database, columns: number): Fts5Totals {
  const record = db.prepare('SELECT block FROM chunks_words_data WHERE id = 1').pluck().get();
  const values: number[] = [];
  if (Buffer.isBuffer(record)) {
    for (let i = 0; i < record.length; ) {
      let value = 0;
      for (let k = 0; ; k += 1) {
        const byte = record[i++] ?? 0;
        if (k === 8) {
          value = value * 256 + byte;
          break;
        }
        value = value * 128 + (byte & 0x7f);
        if (byte < 0x80) break;
      }
      values.push(value);
    }
  }
  const [rows = 0, ...perColumn] = values;
  return { rows, tokens: perColumn.slice(0, columns).reduce((sum, count) => sum + count, 0) };
}
