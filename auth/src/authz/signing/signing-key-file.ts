import { LastGoodFile, type LastGoodFileEvents } from '../../shared/last-good-file.js';
import { parseSigningKeyFile } from './key-file.js';
import type { SigningKeySet } from './signing-key.js';

/** `--signing-keys FILE`: a source of signing keys (SigningKeySource) that keeps the last good keys. */
export type SigningKeyFile = LastGoodFile<SigningKeySet>;

/**
 * `--signing-keys FILE`, re-read when it changes (docs/protocol.md#signing-keys). The first read must
 * succeed (the promise rejects, naming what is wrong); a bad file later keeps the last good keys.
 */
export function openSigningKeyFile(options: LastGoodFileEvents): Promise<SigningKeyFile> {
  return LastGoodFile.open({
    ...options,
    flag: '--signing-keys',
    secret: true,
    parse: (text) => parseSigningKeyFile(text),
    describeTaken: (set) => `signing keys reloaded from ${options.path}: ${describeKeys(set)}`,
    describeRefused: (problem, set) =>
      `signing key file ${options.path}: ${problem}; keeping the last good keys (${describeKeys(set)})`,
  });
}

function describeKeys(set: SigningKeySet): string {
  return `signing with ${set.signing.kid}, publishing ${set.keys.map((key) => key.kid).join(', ')}`;
}
