import type { Stats } from 'node:fs';

/** Group and others may write (a file that decides or records anything must not let them). */
const WRITABLE_BY_OTHERS = 0o022;
/** Group and others may read or write (a file that holds a secret must not let them do either). */
const OPEN_TO_OTHERS = 0o066;
const ROOT_UID = 0;

/**
 * Why a file or folder that holds secrets or evidence, or decides who gets tokens, cannot be trusted as
 * it is (docs/security.md#files-the-services-trust): a user other than this one or root owns it
 * (`ownerAdvice` is appended then), or group or others may write to it. Undefined when neither.
 */
export function ownershipProblem(
  info: Pick<Stats, 'uid' | 'mode'>,
  ownerAdvice = '',
  uid = process.getuid?.(),
): string | undefined {
  // Root can change any file anyway: a root-owned file (0644 under /etc) is as trusted as our own.
  if (uid !== undefined && info.uid !== uid && info.uid !== ROOT_UID) {
    return `is owned by uid ${info.uid}, neither this user (uid ${uid}) nor root${ownerAdvice}`;
  }
  if ((info.mode & WRITABLE_BY_OTHERS) === 0) return undefined;
  return `is writable by group or others (mode ${modeOf(info)}); remove their write permission (chmod go-w)`;
}

/**
 * Why a file the service reads and trusts (the policy, the signing keys: docs/security.md#files-the-services-trust)
 * cannot be trusted as it is: not a regular file, or the ownership rule above; a file that holds a
 * secret may not be readable by group or others either. Undefined when it can be trusted.
 */
export function trustedFileProblem(
  info: Pick<Stats, 'uid' | 'mode' | 'isFile'>,
  secret: boolean,
  uid = process.getuid?.(),
): string | undefined {
  if (!info.isFile()) return 'is not a regular file';
  const problem = ownershipProblem(info, '', uid);
  if (problem !== undefined || !secret || (info.mode & OPEN_TO_OTHERS) === 0) return problem;
  return `is readable by group or others (mode ${modeOf(info)}); make it owner-only (chmod 600)`;
}

function modeOf(info: Pick<Stats, 'mode'>): string {
  return (info.mode & 0o777).toString(8).padStart(4, '0');
}
