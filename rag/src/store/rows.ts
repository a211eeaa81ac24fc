/** Typed reads of SQLite rows (better-sqlite3 returns `unknown`). */

export type Row = Readonly<Record<string, unknown>>;

export function asRow(value: unknown): Row {
  if (typeof value !== 'object' || value === null) throw new TypeError('expected a row');
  return { ...value };
}

export function text(row: Row, column: string): string {
  const value = row[column];
  if (typeof value !== 'string') throw new TypeError(`column ${column}: expected text, got ${typeof value}`);
  return value;
}

export function num(row: Row, column: string): number {
  const value = row[column];
  if (typeof value === 'bigint') return Number(value);
  if (typeof value !== 'number') throw new TypeError(`column ${column}: expected a number, got ${typeof value}`);
  return value;
}
