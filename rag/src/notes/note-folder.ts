import { constants, existsSync } from 'node:fs';
import { type FileHandle, mkdir, open, readlink, realpath } from 'node:fs/promises';
import path from 'node:path';
import { isInside } from '../config/diode-policy.js';
import { NotePlaceError } from './note-target.js';

/** Linux: a path through an open descriptor (`/proc/self/fd/N/name`) resolves in the folder that descriptor holds. */
const OWN_DESCRIPTORS = '/proc/self/fd';
const FOLDER_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY;

let descriptorPaths: boolean | undefined;

/** Whether names can be reached through descriptors here (decided at the first write, not at import). */
function throughDescriptors(): boolean {
  descriptorPaths ??= existsSync(OWN_DESCRIPTORS);
  return descriptorPaths;
}

/**
 * An open folder of a vault, where notes.write puts a note (docs/security.md#vault-folders-and-notes).
 * On Linux every name in it is reached through the open descriptor, never through the folder's path:
 * a folder swapped for a symbolic link after it was opened cannot send a file, a temporary file or a
 * new folder anywhere else, and a temporary file is removed from where it was made. Elsewhere names are
 * reached through the real path it was opened by, and where the folder is now is checked again after
 * the write.
 */
export class NoteFolder {
  readonly #handle: FileHandle;
  /** The path names in this folder are joined to: `/proc/self/fd/N` on Linux, else its real path. */
  readonly path: string;

  private constructor(handle: FileHandle, path: string) {
    this.#handle = handle;
    this.path = path;
  }

  /**
   * Opens the folder of `notePath` (a checked relative note path, docs/protocol.md#tools) in the vault,
   * one folder at a time, each reached from the one before and made (0700) when missing. Every folder
   * opened must lie inside the vault where it is now (a symbolic link is followed only when it stays
   * inside, as the vault walk follows it); anything else is a NotePlaceError and nothing is made outside.
   */
  static async openFor(vaultRealPath: string, notePath: string): Promise<NoteFolder> {
    let folder = await NoteFolder.#open(vaultRealPath, vaultRealPath, notePath);
    for (const segment of notePath.split('/').slice(0, -1)) {
      const parent = folder;
      try {
        const child = path.join(parent.path, segment);
        await mkdir(child, { mode: 0o700 }).catch((err: NodeJS.ErrnoException) => {
          if (err.code !== 'EEXIST') throw err;
        });
        folder = await NoteFolder.#open(child, vaultRealPath, notePath);
      } finally {
        await parent.close();
      }
    }
    return folder;
  }

  static async #open(folderPath: string, vaultRealPath: string, notePath: string): Promise<NoteFolder> {
    const handle = await open(folderPath, FOLDER_FLAGS);
    try {
      const folder = new NoteFolder(
        handle,
        throughDescriptors() ? `${OWN_DESCRIPTORS}/${handle.fd}` : await realpath(folderPath),
      );
      await folder.checkInside(vaultRealPath, notePath);
      return folder;
    } catch (err) {
      await handle.close();
      throw err;
    }
  }

  /** Throws a NotePlaceError unless the folder lies inside the vault where it is now. */
  async checkInside(vaultRealPath: string, notePath: string): Promise<void> {
    // Linux: what the descriptor names now (a removed folder reads `… (deleted)`); elsewhere its path resolved again.
    const where = throughDescriptors() ? await readlink(this.path) : await realpath(this.path);
    if (!isInside(where, vaultRealPath)) {
      throw new NotePlaceError(`${notePath}: its folder is ${where}, outside the vault ${vaultRealPath}`);
    }
  }

  close(): Promise<void> {
    return this.#handle.close();
  }
}
