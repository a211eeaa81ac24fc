import { lstatSync, realpathSync, type Stats } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { isInside } from '../config/diode-policy.js';

/** The path names no place for a note inside the vault (the message is for the audit line). */
export class NotePlaceError extends Error {
  constructor(readonly detail: string) {
    super(detail);
    this.name = 'NotePlaceError';
  }
}

/** What is at a note's path now. */
export interface NoteTarget {
  /** A note exists there already (it is replaced). */
  readonly exists: boolean;
}

/**
 * Resolves a relative note path (already checked by notePathProblem) against
 * the vault's real path, following what exists on disk: the deepest existing
 * folder must lie inside the vault after symlinks are resolved (a folder that
 * is a symlink out of the vault is refused, as the vault walk skips it, see
 * docs/retrieval.md#diode-policy), and an existing entry at the path must be a
 * regular file, not a symlink or a folder. Synchronous: a few lstat/realpath
 * calls when the call is screened and when a new note picks its name; the
 * write itself goes through open folders (NoteFolder) and checks again.
 */
export function resolveNoteTarget(vaultRealPath: string, notePath: string): NoteTarget {
  const absolute = join(vaultRealPath, ...notePath.split('/'));
  const folder = dirname(absolute);
  let existing = folder;
  while (!exists(existing)) existing = dirname(existing);
  const realExisting = insideVault(vaultRealPath, existing, notePath);
  // In a folder still to be made there is nothing yet.
  const entry = existing === folder ? lstatOrUndefined(join(realExisting, basename(absolute))) : undefined;
  refuseAnythingButAFile(entry, notePath);
  return { exists: entry !== undefined };
}

/** An entry at a note's path may be a regular file (replaced) or nothing; a link or a folder is refused. */
export function refuseAnythingButAFile(entry: Stats | undefined, notePath: string): void {
  if (entry && !entry.isFile()) {
    throw new NotePlaceError(`${notePath}: ${entry.isSymbolicLink() ? 'is a symbolic link' : 'is not a regular file'}`);
  }
}

function insideVault(vaultRealPath: string, candidate: string, notePath: string): string {
  const real = realpathSync(candidate);
  if (isInside(real, vaultRealPath)) return real;
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
