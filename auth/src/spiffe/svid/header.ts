import { clip } from '../../shared/clip.js';
import type { SvidAlgorithm } from './algorithms.js';
import { isSvidAlgorithm, SVID_ALGORITHMS } from './algorithms.js';
import { SvidError } from './svid-error.js';

export interface SvidHeader {
  readonly alg: SvidAlgorithm;
  readonly kid: string;
  readonly typ?: 'JWT' | 'JOSE';
}

/** JWT-SVID §2: "registered or unregistered header parameters other than these MUST NOT be included". */
const ALLOWED_HEADER_PARAMETERS: ReadonlySet<string> = new Set(['alg', 'kid', 'typ']);

/**
 * Header checks in the order of docs/protocol.md#client-authentication: algorithm allowlist first, then typ, then no foreign parameters
 * (so `crit`, `jku`, `x5u`, `jwk`, `b64` can never steer verification), then a kid.
 */
export function checkSvidHeader(header: Record<string, unknown>): SvidHeader {
  const { alg, kid, typ } = header;
  if (!isSvidAlgorithm(alg)) {
    throw new SvidError(
      'algorithm',
      `alg ${clip(JSON.stringify(alg) ?? 'absent')} is not one of ${SVID_ALGORITHMS.join(', ')}`,
    );
  }
  // JWT-SVID §2.3: typ, when present, is JWT or JOSE.
  if (typ !== undefined && typ !== 'JWT' && typ !== 'JOSE') {
    throw new SvidError('typ', `typ ${clip(JSON.stringify(typ))} is not JWT or JOSE`);
  }
  const foreign = Object.keys(header).filter((name) => !ALLOWED_HEADER_PARAMETERS.has(name));
  if (foreign.length > 0) throw new SvidError('header', `header parameters not allowed: ${clip(foreign.join(', '))}`);
  // JWT-SVID §6.1 requires a kid on every bundle key; without one in the token no key can be chosen.
  if (typeof kid !== 'string' || kid === '') throw new SvidError('kid', 'header has no kid');
  return typ === undefined ? { alg, kid } : { alg, kid, typ };
}
