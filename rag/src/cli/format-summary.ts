import { terminalText } from '@notegate/kit';
import { NO_MODEL } from '../config/models.js';
import type { IndexSummary } from '../indexer/types.js';

/**
 * The summary for people: counts first, then every skipped or failed file with its reason. File names
 * and reasons come from the vaults: their control characters are shown as escapes
 * (docs/security.md#operators-terminals).
 */
export function formatSummary(summary: IndexSummary): string {
  const lines = [
    `${summary.vaults.join(', ')}: ${summary.new} new, ${summary.updated} updated, ${summary.unchanged} unchanged, ` +
      `${summary.removed} removed, ${summary.skipped.length} skipped, ${summary.failed.length} failed ` +
      `(${summary.chunksEmbedded} chunks ${summary.modelId === NO_MODEL.id ? 'indexed' : 'embedded'} in ${(summary.durationMs / 1000).toFixed(1)} s${summary.rebuilt ? ', rebuilt' : ''})`,
    `index ${summary.indexPath} (${summary.modelId === NO_MODEL.id ? 'no embedding model, lexical only' : summary.modelId}, full-text ${summary.lexicalLayout})`,
  ];
  const section = (title: string, rows: readonly string[]) => {
    if (rows.length > 0) lines.push(`${title}:`, ...rows.map((row) => `  ${terminalText(row)}`));
  };
  section(
    'skipped',
    summary.skipped.map((s) => `${s.vault}/${s.path}: ${s.reason} (${s.detail})`),
  );
  section(
    'failed',
    summary.failed.map((f) => `${f.vault}/${f.path}: ${f.error}`),
  );
  section(
    'warnings',
    summary.warnings.map((w) => `${w.vault}/${w.path}: ${w.message}`),
  );
  return `${lines.join('\n')}\n`;
}

/** The summary for scripts (`--json`), with snake_case names. */
export function summaryJson(summary: IndexSummary) {
  return {
    index_path: summary.indexPath,
    model: summary.modelId,
    lexical_layout: summary.lexicalLayout,
    vaults: summary.vaults,
    rebuilt: summary.rebuilt,
    new: summary.new,
    updated: summary.updated,
    unchanged: summary.unchanged,
    removed: summary.removed,
    skipped: summary.skipped,
    failed: summary.failed,
    warnings: summary.warnings,
    chunks_embedded: summary.chunksEmbedded,
    duration_ms: summary.durationMs,
  };
}
