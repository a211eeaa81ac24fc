import { lstatSync, mkdirSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, sep } from 'node:path';

/** The path names no place for a note inside the vault (the message is for the audit line). */
export class NotePlaceError extends Error {
  constructor(readonly detail: string) {
    super(detail);
    this.name = 'NotePlaceError';
  }
}

/** Where a note file goes: its real folder inside the vault and its name. */
export interface NoteTarget {
  readonly dir: string;
  readonly name: string;
  /** A note exists there already (it is replaced). */
  readonly exists: boolean;
}

/**
 * Resolves a relative note path (already checked by notePathProblem) against
 * the vault's real path, following what exists on disk: the deepest existing
 * folder must lie inside the vault after symlinks are resolved (a folder that
 * is a symlink out of the vault is refused, as the vault walk skips it, see
 * docs/retrieval.md#diode-policy), and an existing entry at the path must be a
 * regular file, not a symlink or a folder. With `create`, missing folders are
 * made, and the result is checked again. Synchronous: a few lstat/realpath
 * calls, run both when the call is screened and again when it writes.
 */
export function resolveNoteTarget(vaultRealPath: string, notePath: string, create: boolean): NoteTarget {
  const absolute = join(vaultRealPath, ...notePath.split('/'));
  const folder = dirname(absolute);
  let existing = folder;
  while (!exists(existing)) existing = dirname(existing);
  insideVault(vaultRealPath, existing, notePath);
  if (create && existing !== folder) mkdirSync(folder, { recursive: true, mode: 0o700 });
  const realFolder = create || existing === folder ? insideVault(vaultRealPath, folder, notePath) : folder;
  const entry = lstatOrUndefined(join(realFolder, basename(absolute)));
  if (entry && !entry.isFile()) {
    throw new NotePlaceError(`${notePath}: ${entry.isSymbolicLink() ? 'is a symbolic link' : 'is not a regular file'}`);
  }
  return { dir: realFolder, name: basename(absolute), exists: entry !== undefined };
}

function insideVault(vaultRealPath: string, candidate: string, notePath: string): string {
  const real = realpathSync(candidate);
  const rel = relative(vaultRealPath, real);
  if (rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel))) return real;
  throw new NotePlaceError(`${notePath}: its folder resolves to ${real}, outside the vault ${vaultRealPath}`);
}

function exists(path: string): boolean {
  return lstatOrUndefined(path) !== undefined;
}

function lstatOrUndefined(path: string) {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}
