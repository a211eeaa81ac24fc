import type Database from 'better-sqlite3';
import type { ModelSpec } from '../config/models.js';
import { RagError } from '../errors/rag-error.js';
import { assertIndexMatches, META_KEYS, newChangeLogId, writeMeta } from './index-meta.js';
import { asRow, num } from './rows.js';
import { createSchema, dropSchema, SCHEMA_VERSION, UPGRADABLE_VERSION, upgradeSchema } from './schema.js';
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
 * step (docs/retrieval.md#index-format). Upgrades format 2 in place; refuses a
 * foreign database, another format version, and an index built with another
 * model or dimension.
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
  if (version === UPGRADABLE_VERSION) upgrade(db);
  assertIndexMatches(db, file, options.model, "run 'notegate-rag index --rebuild' to rebuild it with the new model");
}

/** Format 2 to 3: the change log, and the name that replaces format 2's vectors generation. */
function upgrade(db: Database.Database): void {
  upgradeSchema(db);
  db.prepare('DELETE FROM meta WHERE key = ?').run(FORMAT_2_VECTORS_GENERATION);
  writeMeta(db, {
    [META_KEYS.schemaVersion]: SCHEMA_VERSION,
    [META_KEYS.changeLogId]: newChangeLogId(),
    [META_KEYS.changeLogPrunedThrough]: 0,
  });
}

/** Format 2 told readers that chunks had changed by this meta value; the change log does it now. */
const FORMAT_2_VECTORS_GENERATION = 'vectors_generation';

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
