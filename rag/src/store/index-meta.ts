import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { ModelSpec } from '../config/models.js';
import { RagError } from '../errors/rag-error.js';
import { asRow, text } from './rows.js';
import { type LexicalLayout, SCHEMA_VERSION, UPGRADABLE_VERSIONS } from './schema.js';

/** What the `meta` table records about the index as a whole. */
export interface IndexMeta {
  readonly schemaVersion: number;
  readonly modelId: string;
  readonly dimension: number;
  /** The full-text tables in use (docs/retrieval.md#index-format). */
  readonly lexicalLayout: LexicalLayout;
  readonly vectorFormat: string;
  /** Fingerprint of everything that shapes vectors, as of the last finished run ('' before one). */
  readonly fingerprint: string;
  readonly createdAtMs: number;
  /** End of the last finished `index` run; undefined before the first. */
  readonly lastIndexedAtMs: number | undefined;
  /**
   * Names the change log (docs/retrieval.md#index-format): a fresh random
   * value when the index is created or rebuilt, so that a reader never takes
   * the sequence numbers of one log for those of another.
   */
  readonly changeLogId: string;
}

export const META_KEYS = {
  schemaVersion: 'schema_version',
  modelId: 'model_id',
  dimension: 'dimension',
  lexicalLayout: 'lexical_layout',
  vectorFormat: 'vector_format',
  fingerprint: 'fingerprint',
  fingerprintInputs: 'fingerprint_inputs',
  createdAtMs: 'created_at_ms',
  lastIndexedAtMs: 'last_indexed_at_ms',
  changeLogId: 'change_log_id',
  changeLogPrunedThrough: 'change_log_pruned_through',
} as const;

/** The name of a new change log. Random, so that it never repeats across a rebuild or a replaced file. */
export function newChangeLogId(): string {
  return randomUUID();
}

export function readMetaValues(db: Database.Database): Map<string, string> {
  const rows = db.prepare('SELECT key, value FROM meta').all().map(asRow);
  return new Map(rows.map((row) => [text(row, 'key'), text(row, 'value')]));
}

/** Reads and checks the index metadata; an index missing any of it is refused. */
export function readIndexMeta(db: Database.Database): IndexMeta {
  const values = readMetaValues(db);
  const required = (key: string): string => {
    const value = values.get(key);
    if (value === undefined)
      throw new RagError('ERR_INDEX_SCHEMA', `index metadata lacks ${key}; rebuild with --rebuild`);
    return value;
  };
  const layout = required(META_KEYS.lexicalLayout);
  if (layout !== 'words+trigram' && layout !== 'words') {
    throw new RagError('ERR_INDEX_SCHEMA', `index metadata has an unknown lexical_layout ${layout}`);
  }
  const last = values.get(META_KEYS.lastIndexedAtMs);
  return {
    schemaVersion: Number(required(META_KEYS.schemaVersion)),
    modelId: required(META_KEYS.modelId),
    dimension: Number(required(META_KEYS.dimension)),
    lexicalLayout: layout,
    vectorFormat: required(META_KEYS.vectorFormat),
    fingerprint: values.get(META_KEYS.fingerprint) ?? '',
    createdAtMs: Number(required(META_KEYS.createdAtMs)),
    lastIndexedAtMs: last === undefined ? undefined : Number(last),
    changeLogId: required(META_KEYS.changeLogId),
  };
}

/** The index's metadata, once the file is known to be an index of this format; refuses anything else. */
export function readCheckedIndexMeta(db: Database.Database, file: string): IndexMeta {
  const version = Number(db.pragma('user_version', { simple: true }));
  if (version !== SCHEMA_VERSION) throw new RagError('ERR_INDEX_SCHEMA', formatRefusal(file, version));
  return readIndexMeta(db);
}

/**
 * The index's metadata, once it is known to be an index of this format built
 * with `model` (model id and dimension); refuses anything else. `advice`
 * ends the message for an index of another model: what to do about it where
 * the caller runs.
 */
export function assertIndexMatches(db: Database.Database, file: string, model: ModelSpec, advice: string): IndexMeta {
  const meta = readCheckedIndexMeta(db, file);
  if (meta.modelId !== model.id || meta.dimension !== model.dimension) {
    throw new RagError(
      'ERR_INDEX_MODEL_MISMATCH',
      `index ${file} was built with ${meta.modelId} (${meta.dimension} dimensions) but the config names ${model.id} (${model.dimension} dimensions); ${advice}`,
    );
  }
  return meta;
}

/** What to do about an index of another format version: formats 2 and 3 are upgraded in place by the next `index` run. */
function formatRefusal(file: string, version: number): string {
  if (version === 0) return `${file} is not a notegate index (or it is still being created); run 'notegate-rag index'`;
  const found = `index ${file} has format version ${version}, this version reads ${SCHEMA_VERSION}`;
  const upgrade = UPGRADABLE_VERSIONS.get(version);
  return upgrade === undefined
    ? `${found}; run 'notegate-rag index --rebuild'`
    : `${found}; run 'notegate-rag index' once to upgrade it in place (${upgrade})`;
}

export function writeMeta(db: Database.Database, values: Readonly<Record<string, string | number>>): void {
  const upsert = db.prepare(
    'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
  );
  for (const [key, value] of Object.entries(values)) upsert.run(key, String(value));
}
