import type { Stats } from 'node:fs';

/**
 * Why a file or folder that holds secrets or evidence cannot be trusted as it is (docs/security.md#security-properties):
 * another user owns it (`ownerAdvice` is appended then), or group or others may write to it. Undefined when neither.
 */
export function ownershipProblem(
  info: Pick<Stats, 'uid' | 'mode'>,
  ownerAdvice = '',
  uid = process.getuid?.(),
): string | undefined {
  if (uid !== undefined && info.uid !== uid) {
    return `is owned by uid ${info.uid}, not by this user (uid ${uid})${ownerAdvice}`;
  }
  if ((info.mode & 0o022) === 0) return undefined;
  const mode = (info.mode & 0o777).toString(8).padStart(4, '0');
  return `is writable by group or others (mode ${mode}); remove their write permission (chmod go-w)`;
}
