import type { InstallReport } from '../embed/install-model.js';
import type { CachedModel } from '../embed/model-inventory.js';

/** What `model install` did, one line per file, then whether the model is complete. */
export function formatInstall(report: InstallReport): string {
  const lines = report.files.map(
    (f) =>
      `${f.action === 'installed' ? 'installed' : 'already there'}  ${f.file.path}  (sha256 ${f.file.sha256}, verified)  from ${f.origin}`,
  );
  lines.push(
    report.missing.length === 0
      ? `${report.model.id} is complete in ${report.dir}`
      : `${report.model.id} still lacks ${report.missing.map((f) => f.path).join(', ')} in ${report.dir}`,
  );
  return `${lines.join('\n')}\n`;
}

/** `model list`: per model, each file with its state. */
export function formatInventory(cacheDir: string, inventory: readonly CachedModel[]): string {
  const lines = [`model cache ${cacheDir}`];
  for (const { model, files } of inventory) {
    const complete = files.every((f) => f.state === 'verified' || f.state === 'unpinned');
    const none = files.every((f) => f.state === 'missing');
    lines.push('', `${model.id}: ${none ? 'not installed' : complete ? 'complete' : 'incomplete'}`);
    for (const f of files) {
      const size = f.sizeBytes === undefined ? '' : `  ${f.sizeBytes} bytes`;
      lines.push(`  ${f.state.padEnd(8)}  ${f.file.path}${size}`);
    }
  }
  return `${lines.join('\n')}\n`;
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
