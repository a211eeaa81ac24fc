import { randomBytes } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Replaces `dir/name` atomically: the content goes to a new temporary file in
 * the same directory (same file system, so rename is atomic), is fsynced, then
 * renamed over the target, and the directory is fsynced so the rename itself
 * survives a crash. A reader or a crash sees the old file or the new one,
 * never a mix; concurrent writers of one name each rename a complete file, so
 * the last rename wins.
 */
export async function writeFileAtomic(dir: string, name: string, content: string): Promise<void> {
  const temporary = join(dir, `.${name}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const handle = await open(temporary, 'wx', 0o600);
    try {
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
