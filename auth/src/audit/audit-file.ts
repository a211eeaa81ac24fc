import { closeSync, constants, fchmodSync, fstatSync, openSync } from 'node:fs';
import { UsageError } from '@notegate/kit/cli';
import { ownershipProblem } from '../shared/owner-only.js';

/** Owner read/write only: audit lines name callers and decisions. */
const AUDIT_FILE_MODE = 0o600;

/**
 * Opens the `--audit-log` file for appending (docs/security.md#files-the-services-trust). The final
 * component must not be a symbolic link (O_NOFOLLOW: a link planted there cannot send the lines, or a
 * newly created file, somewhere else), the file must be a regular file of this user that nobody else
 * may write (someone who can could add or rewrite lines), and it is made 0600 on the open descriptor,
 * so a file that was readable by others is tightened without a window. A character device (/dev/null
 * to discard the lines) is taken as it is. O_NONBLOCK only keeps a FIFO from blocking the open; it is
 * refused next. Every refusal is a start-up error naming the file.
 */
export function openAuditFile(path: string): number {
  const flags =
    constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK;
  let fd: number;
  try {
    fd = openSync(path, flags, AUDIT_FILE_MODE);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw refuse(path, 'is a symbolic link; name the file itself');
    throw new UsageError(`--audit-log: cannot open ${path} for appending (${code ?? String(err)})`);
  }
  try {
    const info = fstatSync(fd);
    // A device such as /dev/null holds no lines to protect, and is never re-moded.
    if (info.isCharacterDevice()) return fd;
    if (!info.isFile()) throw refuse(path, 'is neither a regular file nor a character device');
    const problem = ownershipProblem(info);
    if (problem !== undefined) throw refuse(path, problem);
    fchmodSync(fd, AUDIT_FILE_MODE);
    return fd;
  } catch (err) {
    closeSync(fd);
    throw err;
  }
}

function refuse(path: string, why: string): UsageError {
  return new UsageError(`--audit-log: ${path} ${why}`);
}
