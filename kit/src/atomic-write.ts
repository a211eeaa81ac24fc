import { open, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { randomHex } from './random-hex.js';

/** Owner read/write only, from the moment the file exists (the umask may only have taken bits away). */
const PRIVATE_FILE_MODE = 0o600;

/**
 * Replaces `dir/name` atomically with a private (0600) file: the content goes to a new temporary file
 * in the same directory (created exclusively with mode 0600, so never readable by others, and on the
 * same file system, so rename is atomic), is fsynced, then renamed over the target (a symbolic link
 * there is replaced, never followed), and the directory is fsynced so the rename itself survives a
 * crash. A reader or a crash sees the old file or the new one, never a mix; concurrent writers of one
 * name each rename a complete file, so the last rename wins.
 */
export async function writeFileAtomic(dir: string, name: string, content: string): Promise<void> {
  const temporary = join(dir, `.${name}.${randomHex(8)}.tmp`);
  try {
    const handle = await open(temporary, 'wx', PRIVATE_FILE_MODE);
    try {
      await handle.chmod(PRIVATE_FILE_MODE);
      await handle.writeFile(content, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, join(dir, name));
  } catch (err) {
    await rm(temporary, { force: true });
    throw err;
  }
  await syncDirectory(dir);
}

async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
