import { terminalText } from '@notegate/kit';
import { describeLocation } from '../config/config-location.js';
import type { IndexStatus, VaultStatus } from '../status/index-status.js';
import { addVectorsLater } from './config-file.js';
import { formatDuration } from './progress-reporter.js';

/**
 * `notegate-rag status` for people (docs/retrieval.md#status): config, index, model, then a row per vault.
 * Paths, vault ids and errors have their control characters shown as escapes (docs/security.md#operators-terminals).
 */
export function formatStatus(status: IndexStatus, nowMs: number): string {
  const lines = [
    `config  ${terminalText(describeLocation(status.config))}`,
    `index   ${terminalText(status.indexPath)}`,
    ...indexLines(status, nowMs).map((line) => `        ${line}`),
    `model   ${modelLine(status)}`,
    'vaults',
    ...table(
      ['id', 'files', 'chunks', 'changed', 'path'],
      status.vaults.map((vault) => [
        terminalText(vault.id),
        String(vault.files),
        String(vault.chunks),
        changedText(vault),
        terminalText(vault.path),
      ]),
    ).map((line) => `  ${line}`),
    ...status.unconfigured.map(
      (vault) =>
        `  ${terminalText(vault.id)}: ${vault.files} files in the index, not in the config (the next index run drops them)`,
    ),
  ];
  return `${lines.join('\n')}\n`;
}

function indexLines(status: IndexStatus, nowMs: number): string[] {
  const { index } = status;
  if (index.state === 'missing') return ["not built yet: run 'notegate-rag index'"];
  if (index.state === 'unreadable') return [`unreadable: ${terminalText(index.reason)}`];
  const { meta } = index;
  const files = status.vaults.reduce((sum, vault) => sum + vault.files, 0);
  const chunks = status.vaults.reduce((sum, vault) => sum + vault.chunks, 0);
  const changed = status.vaults.reduce((sum, vault) => sum + vault.added + vault.modified + vault.removed, 0);
  const lastRun =
    meta.lastIndexedAtMs === undefined
      ? 'no index run has finished yet (incomplete)'
      : `last index run ${new Date(meta.lastIndexedAtMs).toISOString()} (${formatDuration(nowMs - meta.lastIndexedAtMs)} ago)`;
  const built =
    meta.modelId === status.modelId
      ? []
      : [`built with ${meta.modelId}, the config names ${status.modelId}: run 'notegate-rag index --rebuild'`];
  return [
    `${files} files, ${chunks} chunks; full-text ${meta.lexicalLayout}${meta.dimension > 0 ? `, vectors of ${meta.dimension} dimensions` : ', no vectors'}`,
    lastRun,
    changed === 0
      ? 'up to date with the vault folders'
      : `${changed} file${changed === 1 ? '' : 's'} changed since: run 'notegate-rag index'`,
    ...built,
  ];
}

function modelLine(status: IndexStatus): string {
  if (!status.vectors) return `none: a lexical-only index, lexical search. ${addVectorsLater(status.config.file)}`;
  if (status.missingModelFiles.length > 0) {
    return (
      `${status.modelId}: files missing from the model cache (${status.missingModelFiles.join(', ')}); ` +
      `'notegate-rag index' downloads them where the model hub is reachable, else install them with ` +
      `'notegate-rag model install', or go without vectors: "embed_model": "none" and 'notegate-rag index --rebuild'`
    );
  }
  const weights = status.weights;
  const verified = weights?.verified
    ? 'verified (the official release)'
    : `NOT verified (sha256 ${weights?.sha256 ?? '?'}${weights?.officialSha256 ? `, the release's is ${weights.officialSha256}` : ', no official hash is known'})`;
  return `${status.modelId}: hybrid search; model files present, weights ${verified}`;
}

function changedText(vault: VaultStatus): string {
  const parts = [
    vault.added > 0 ? `${vault.added} new` : '',
    vault.modified > 0 ? `${vault.modified} modified` : '',
    vault.removed > 0 ? `${vault.removed} deleted` : '',
  ].filter((part) => part !== '');
  return parts.length === 0 ? '-' : parts.join(', ');
}

function table(headers: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const format = (cells: readonly string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [format(headers), ...rows.map(format)];
}

/** The same for scripts (`--json`), snake_case. */
export function statusJson(status: IndexStatus) {
  const { index } = status;
  return {
    config: status.config.file,
    config_source: status.config.source,
    index_path: status.indexPath,
    index: {
      state: index.state,
      error: index.state === 'unreadable' ? index.reason : null,
      model: index.state === 'ready' ? index.meta.modelId : null,
      dimension: index.state === 'ready' ? index.meta.dimension : null,
      lexical_layout: index.state === 'ready' ? index.meta.lexicalLayout : null,
      created_at: index.state === 'ready' ? new Date(index.meta.createdAtMs).toISOString() : null,
      last_indexed_at:
        index.state === 'ready' && index.meta.lastIndexedAtMs !== undefined
          ? new Date(index.meta.lastIndexedAtMs).toISOString()
          : null,
    },
    model: status.modelId,
    vectors: status.vectors,
    model_files_missing: status.missingModelFiles,
    model_verified: status.weights?.verified ?? null,
    weights_sha256: status.weights?.sha256 ?? null,
    vaults: status.vaults.map((vault) => ({
      id: vault.id,
      path: vault.path,
      files: vault.files,
      chunks: vault.chunks,
      changed: { new: vault.added, modified: vault.modified, deleted: vault.removed },
    })),
    unconfigured_vaults: status.unconfigured,
  };
}
