import path from 'node:path';

/** Whether `child` is `parent` or lies below it (both absolute, already resolved). */
export function isInside(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

/**
 * docs/retrieval.md#diode-policy: the macOS iCloud Drive container
 * `~/Library/Mobile Documents` (which holds the notes-app vaults) and its
 * `~/Library/CloudStorage/iCloud*` views are always refused. Compared without
 * case, because the macOS file system ignores it.
 */
export function isPersonalCloudPath(candidate: string, homeDirs: readonly string[]): boolean {
  return homeDirs.some((home) => {
    const [lowerHome, lowerCandidate] = [home.toLowerCase(), candidate.toLowerCase()];
    if (!isInside(lowerCandidate, lowerHome)) return false;
    const [first, second, third] = path.relative(lowerHome, lowerCandidate).split(path.sep);
    if (first !== 'library') return false;
    return second === 'mobile documents' || (second === 'cloudstorage' && (third ?? '').startsWith('icloud'));
  });
}

export function personalCloudMessage(offending: string): string {
  return `diode policy: ${offending} is inside the iCloud Drive container (~/Library/Mobile Documents, ~/Library/CloudStorage/iCloud*); personal data is never indexed`;
}

export interface DiodeContext {
  /** Real paths of the allowed roots. */
  readonly allowedRoots: readonly string[];
  /** The home directory, as given and as its real path. */
  readonly homeDirs: readonly string[];
}

export type DiodeVerdict =
  | { readonly allowed: true }
  | { readonly allowed: false; readonly reason: 'personal_cloud' | 'outside_allowed_roots'; readonly message: string };

/**
 * docs/retrieval.md#diode-policy: a path must lie under an allowed root
 * and never inside the personal cloud drive. `paths` are the path as written
 * and its real path; every one must pass.
 */
export function checkDiode(paths: readonly string[], context: DiodeContext): DiodeVerdict {
  const cloud = paths.find((candidate) => isPersonalCloudPath(candidate, context.homeDirs));
  if (cloud !== undefined) {
    return {
      allowed: false,
      reason: 'personal_cloud',
      message: personalCloudMessage(cloud),
    };
  }
  const real = paths[paths.length - 1] ?? '';
  if (!context.allowedRoots.some((root) => isInside(real, root))) {
    return {
      allowed: false,
      reason: 'outside_allowed_roots',
      message: `diode policy: ${real} is outside allowed_roots (${context.allowedRoots.join(', ')})`,
    };
  }
  return { allowed: true };
}
