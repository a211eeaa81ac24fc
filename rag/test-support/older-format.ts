import type Database from 'better-sqlite3';

/**
 * Makes an index of this version's format look as format 2 or 3 left it
 * (docs/retrieval.md#index-format): no change log, the vectors generation in
 * `meta`, the older version number. (What else format 2 wrote otherwise, the
 * caller changes.)
 */
export function asOlderFormat(db: Database.Database, version: 2 | 3): void {
  db.exec(`DROP TRIGGER chunk_changes_added; DROP TRIGGER chunk_changes_removed; DROP TABLE chunk_changes;
    DELETE FROM meta WHERE key IN ('change_log_id', 'change_log_pruned_through');
    INSERT INTO meta (key, value) VALUES ('vectors_generation', 'old');
    UPDATE meta SET value = '${version}' WHERE key = 'schema_version';
    PRAGMA user_version = ${version};`);
}
