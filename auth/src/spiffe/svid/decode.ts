import { isRecord } from '@notegate/kit';
import { SvidError } from './svid-error.js';

/** Ours: a SPIRE JWT-SVID is under 1.5 KiB even with an RSA-4096 key; 16 KiB bounds the work on hostile input. */
export const MAX_SVID_BYTES = 16 * 1024;
/** Ours: claims nested deeper than this are refused (SVID claims are flat; keeps later walks cheap). */
const MAX_SVID_JSON_DEPTH = 16;

export interface DecodedSvid {
  readonly header: Record<string, unknown>;
  readonly claims: Record<string, unknown>;
}

const BASE64URL = /^[A-Za-z0-9_-]+$/;

/**
 * Strict decode of an unverified JWT-SVID: JWS Compact Serialization only (JWT-SVID §1), three
 * non-empty base64url parts, header and payload JSON objects, bounded size and depth.
 */
export function decodeSvid(token: string): DecodedSvid {
  if (token.length > MAX_SVID_BYTES) throw new SvidError('malformed', `token longer than ${MAX_SVID_BYTES} bytes`);
  const parts = token.split('.');
  if (parts.length !== 3) throw new SvidError('malformed', `expected 3 dot-separated parts, got ${parts.length}`);
  const [header, payload, signature] = parts;
  for (const [name, part] of [
    ['header', header],
    ['payload', payload],
    ['signature', signature],
  ] as const) {
    if (part === undefined || !BASE64URL.test(part)) throw new SvidError('malformed', `${name} is not base64url`);
  }
  return { header: decodeJsonObject('header', header ?? ''), claims: decodeJsonObject('payload', payload ?? '') };
}

function decodeJsonObject(name: string, part: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
  } catch {
    throw new SvidError('malformed', `${name} is not JSON`);
  }
  if (!isRecord(value)) throw new SvidError('malformed', `${name} is not a JSON object`);
  if (depthExceeds(value, MAX_SVID_JSON_DEPTH)) {
    throw new SvidError('malformed', `${name} is nested deeper than ${MAX_SVID_JSON_DEPTH} levels`);
  }
  return value;
}

/** Iterative, so a deeply nested value cannot overflow the stack. */
function depthExceeds(root: unknown, maxDepth: number): boolean {
  const stack: Array<{ value: unknown; depth: number }> = [{ value: root, depth: 1 }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    if (typeof item.value !== 'object' || item.value === null) continue;
    if (item.depth > maxDepth) return true;
    for (const child of Object.values(item.value)) stack.push({ value: child, depth: item.depth + 1 });
  }
  return false;
}
