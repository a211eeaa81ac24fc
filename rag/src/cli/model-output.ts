import { terminalText } from '@notegate/kit';
import type { InstallReport } from '../embed/install-model.js';
import type { CachedFileState, CachedModel } from '../embed/model-inventory.js';

/** What `model install` did, one line per file, then whether the model is complete. */
export function formatInstall(report: InstallReport): string {
  const lines = report.files.map(
    (f) =>
      `${f.action === 'installed' ? 'installed' : 'already there'}  ${f.file.path}  (sha256 ${f.file.sha256}, verified)  from ${terminalText(f.origin)}`,
  );
  lines.push(
    report.missing.length === 0
      ? `${report.model.id} is complete in ${terminalText(report.dir)}`
      : `${report.model.id} still lacks ${report.missing.map((f) => f.path).join(', ')} in ${terminalText(report.dir)}`,
  );
  return `${lines.join('\n')}\n`;
}

/** `model list`: per model, each file with its state. */
export function formatInventory(cacheDir: string, inventory: readonly CachedModel[]): string {
  const lines = [`model cache ${terminalText(cacheDir)}`];
  for (const { model, files } of inventory) {
    lines.push('', `${model.id}: ${summaryOf(files.map((f) => f.state))}`);
    for (const f of files) {
      const size = f.sizeBytes === undefined ? '' : `  ${f.sizeBytes} bytes`;
      lines.push(`  ${f.state.padEnd(8)}  ${f.file.path}${size}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

function summaryOf(states: readonly CachedFileState[]): string {
  if (states.every((s) => s === 'missing')) return 'not installed';
  if (states.includes('missing')) return 'incomplete';
  if (states.includes('mismatch')) return 'complete, but not the pinned files';
  return states.includes('unpinned') ? 'complete, not verifiable (no pinned hashes)' : 'complete, verified';
}

/** The list for scripts (`--json`), snake_case. */
export function inventoryJson(cacheDir: string, inventory: readonly CachedModel[]) {
  return {
    model_cache: cacheDir,
    models: inventory.map(({ model, files }) => ({
      model: model.id,
      files: files.map((f) => ({
        path: f.file.path,
        state: f.state,
        size_bytes: f.sizeBytes ?? null,
        sha256: f.sha256 ?? null,
        pinned_sha256: f.file.sha256 ?? null,
      })),
    })),
  };
}
