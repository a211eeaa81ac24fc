import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import path from 'node:path';
import { MODEL_WEIGHTS_FILE, type ModelFile, type ModelSpec } from '../config/models.js';
import { installError, readSource, type Source, type SourceFile } from './install-sources.js';
import { missingModelFiles, modelDir, modelFilePath } from './model-files.js';
import { hashFile } from './model-inventory.js';

export interface InstalledFile {
  readonly file: ModelFile;
  readonly origin: string;
  /** `unchanged`: the cache already held these very bytes. */
  readonly action: 'installed' | 'unchanged';
}

export interface InstallReport {
  readonly model: ModelSpec;
  readonly dir: string;
  readonly files: readonly InstalledFile[];
  /** Files of the model the cache still lacks after the install. */
  readonly missing: readonly ModelFile[];
}

/**
 * `notegate-rag model install` (docs/retrieval.md#installing-weights): takes
 * the model's files from the sources (files, folders, zip archives) by their
 * pinned SHA-256, whatever they are called there, and installs them into the
 * model cache. Every source is read and checked before anything is written; a
 * refusal (an unpinned model, a source that holds none of the model's files,
 * weights that are not the pinned ones, a truncated archive) is an
 * ERR_MODEL_INSTALL naming what was expected, and leaves the cache as it was.
 * Each file is written to a temporary name beside its place and renamed into
 * it once all are written.
 */
export async function installModel(
  model: ModelSpec,
  cacheDir: string,
  sourcePaths: readonly string[],
): Promise<InstallReport> {
  const unpinned = model.files.filter((file) => file.sha256 === undefined);
  if (model.files.length === 0 || unpinned.length > 0) {
    throw installError(
      `${model.id}: no SHA-256 is pinned for ${unpinned.map((f) => f.path).join(', ') || 'its files'}, so nothing can be verified; place the files in ${modelDir(cacheDir, model)} yourself`,
    );
  }
  const extensions = [...new Set(model.files.map((file) => path.extname(file.path)))];
  const chosen = new Map<string, { readonly file: ModelFile; readonly source: SourceFile }>();
  for (const sourcePath of sourcePaths) {
    const source = await readSource(sourcePath, extensions);
    for (const found of modelFilesIn(model, source)) chosen.set(found.file.path, found);
  }
  const files = [...chosen.values()].map(({ file, source }) => ({
    file,
    source,
    target: modelFilePath(cacheDir, model, file),
  }));
  const changed: typeof files = [];
  for (const entry of files) {
    if (!existsSync(entry.target) || (await hashFile(entry.target)) !== entry.source.sha256) changed.push(entry);
  }
  await writeAll(changed);
  return {
    model,
    dir: modelDir(cacheDir, model),
    files: files.map(({ file, source }) => ({
      file,
      origin: source.origin,
      action: changed.some((c) => c.file === file) ? 'installed' : 'unchanged',
    })),
    missing: missingModelFiles(cacheDir, model),
  };
}

/** The model's files in one source; refuses the install when the source holds none, or holds other weights. */
function modelFilesIn(model: ModelSpec, source: Source): { file: ModelFile; source: SourceFile }[] {
  const weights = model.files.find((file) => file.path === MODEL_WEIGHTS_FILE);
  const weightsExtension = path.extname(MODEL_WEIGHTS_FILE);
  // .onnx files of which none is the pinned weights are refused, whatever else the source holds: the user meant them.
  const weightsFound = source.files.filter((found) => found.origin.endsWith(weightsExtension));
  if (weights && weightsFound.length > 0 && !weightsFound.some((found) => found.sha256 === weights.sha256)) {
    const seen = weightsFound.map((found) => `${found.origin} has SHA-256 ${found.sha256}`).join('; ');
    throw installError(
      `${seen}, but the weights of ${model.id} (${MODEL_WEIGHTS_FILE}) have SHA-256 ${weights.sha256}: a different or damaged file`,
    );
  }
  const found = source.files.flatMap((candidate) => {
    const file = model.files.find((f) => f.sha256 === candidate.sha256);
    return file ? [{ file, source: candidate }] : [];
  });
  if (found.length > 0) return found;
  const expected = model.files.map((file) => `${file.path} (sha256 ${file.sha256})`).join(', ');
  const seen =
    source.kind === 'file'
      ? `${source.path} has SHA-256 ${source.files[0]?.sha256}`
      : source.files.length === 0
        ? `${source.path} (${source.kind}) holds no ${[...new Set(model.files.map((f) => path.extname(f.path)))].join(' or ')} file`
        : `${source.path} (${source.kind}) holds ${source.files.map((f) => `${f.origin} (sha256 ${f.sha256})`).join(', ')}`;
  throw installError(`${seen}, none of the files of ${model.id}: expected ${expected}`);
}

/** Writes every file under a temporary name, then renames each into place; on a failure removes what it wrote. */
async function writeAll(files: readonly { readonly source: SourceFile; readonly target: string }[]): Promise<void> {
  const created: string[] = [];
  const staged: { temporary: string; target: string }[] = [];
  try {
    for (const { source, target } of files) {
      const dir = mkdirSync(path.dirname(target), { recursive: true });
      if (dir !== undefined) created.push(dir);
      const temporary = `${target}.install-${process.pid}-${randomBytes(4).toString('hex')}`;
      staged.push({ temporary, target });
      const handle = await open(temporary, 'wx');
      try {
        await handle.writeFile(source.bytes);
        await handle.sync();
      } finally {
        await handle.close();
      }
    }
  } catch (err) {
    for (const { temporary } of staged) rmSync(temporary, { force: true });
    for (const dir of created) rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  for (const { temporary, target } of staged) renameSync(temporary, target);
}
