import type { Stats } from 'node:fs';
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { errorMessage } from '@notegate/kit';

/** Why a file as opened cannot be used (its problem, for a message), or undefined when it can. */
export type FileCheck = (info: Stats) => string | undefined;

/** A file that was read but refused by its check: the message is the check's problem. */
export class FileRefusedError extends Error {
  constructor(problem: string) {
    super(problem);
    this.name = 'FileRefusedError';
  }
}

/**
 * Reads a whole file after `check` has passed the file it opened: the check sees the descriptor's
 * stats (fstat), so a file swapped in between is never the one read. O_NONBLOCK keeps a FIFO from
 * blocking the open; it has no effect on a regular file.
 */
export async function readCheckedFile(path: string, check: FileCheck): Promise<Buffer> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const problem = check(await handle.stat());
    if (problem !== undefined) throw new FileRefusedError(problem);
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

/** What went wrong reading a file, for the operator: the check's problem, or why it could not be read. */
export function describeReadFailure(err: unknown): string {
  return err instanceof FileRefusedError ? err.message : `cannot read: ${errorMessage(err)}`;
}
