import type Database from 'better-sqlite3';
import type { ModelSpec } from '../config/models.js';
import { RagError } from '../errors/rag-error.js';
import { assertIndexMatches, META_KEYS, newChangeLogId, writeMeta } from './index-meta.js';
import { asRow, num } from './rows.js';
import {
  applyFullTextSettings,
  createSchema,
  dropSchema,
  SCHEMA_VERSION,
  UPGRADABLE_VERSIONS,
  upgradeSchema,
} from './schema.js';
import { VECTOR_FORMAT } from './vector-codec.js';

export interface OpenIndexOptions {
  readonly model: ModelSpec;
  /** Internal: force the fallback layout, the word table alone (tests). */
  readonly lexicalLayout?: 'auto' | 'words';
  /** `--rebuild`: drop every table and start an empty index (in the same transaction as the checks). */
  readonly rebuild?: boolean;
  readonly nowMs: number;
}

/**
 * Creates, checks or (with `rebuild`) recreates the schema; runs inside the
 * opener's `BEGIN IMMEDIATE` so that the version check and the DDL are one
 * step (docs/retrieval.md#index-format). Upgrades formats 2 and 3 in place; refuses a
 * foreign database, another format version, and an index built with another
 * model or dimension (a refusal rolls the upgrade back with the transaction).
 */
export function prepareSchema(db: Database.Database, file: string, options: OpenIndexOptions): void {
  const version = Number(db.pragma('user_version', { simple: true }));
  if (version === 0) {
    const foreign = db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'").get();
    if (num(asRow(foreign), 'n') > 0) {
      throw new RagError(
        'ERR_INDEX_SCHEMA',
        `${file} is a SQLite database but not a notegate index; refusing to touch it`,
      );
    }
    initialise(db, options);
    return;
  }
  if (options.rebuild) {
    dropSchema(db);
    initialise(db, options);
    return;
  }
  if (UPGRADABLE_VERSIONS.has(version)) upgrade(db, version);
  const meta = assertIndexMatches(
    db,
    file,
    options.model,
    "run 'notegate-rag index --rebuild' to rebuild it with the new model",
  );
  // An index made before the setting existed gets it too (docs/retrieval.md#index-runs).
  applyFullTextSettings(db, meta.lexicalLayout);
}

/**
 * Formats 2 and 3 to 4 (`upgradeSchema`): besides the tables, the name of the
 * change log, which replaces the vectors generation by which the older
 * formats told readers that chunks had changed.
 */
function upgrade(db: Database.Database, from: number): void {
  upgradeSchema(db, from);
  db.prepare('DELETE FROM meta WHERE key = ?').run(OLD_VECTORS_GENERATION);
  writeMeta(db, {
    [META_KEYS.schemaVersion]: SCHEMA_VERSION,
    [META_KEYS.changeLogId]: newChangeLogId(),
    [META_KEYS.changeLogPrunedThrough]: 0,
  });
}

/** The meta key of formats 2 and 3 that the change log replaces. */
const OLD_VECTORS_GENERATION = 'vectors_generation';

function initialise(db: Database.Database, options: OpenIndexOptions): void {
  const layout = createSchema(db, options.lexicalLayout ?? 'auto');
  writeMeta(db, {
    [META_KEYS.schemaVersion]: SCHEMA_VERSION,
    [META_KEYS.modelId]: options.model.id,
    [META_KEYS.dimension]: options.model.dimension,
    [META_KEYS.lexicalLayout]: layout,
    [META_KEYS.vectorFormat]: VECTOR_FORMAT,
    [META_KEYS.createdAtMs]: options.nowMs,
    [META_KEYS.changeLogId]: newChangeLogId(),
    [META_KEYS.changeLogPrunedThrough]: 0,
  });
}
