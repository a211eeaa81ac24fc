import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describeFsError } from '../walk/walk-vault.js';

export type ContentRead =
  | { readonly ok: true; readonly bytes: Buffer; readonly sha256: string }
  | { readonly ok: false; readonly detail: string };

export function readContent(realPath: string): ContentRead {
  try {
    const bytes = readFileSync(realPath);
    return { ok: true, bytes, sha256: createHash('sha256').update(bytes).digest('hex') };
  } catch (err) {
    return { ok: false, detail: describeFsError(err) };
  }
}

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/** Strict UTF-8 (a leading BOM is dropped); undefined when the bytes are not UTF-8. */
export function decodeUtf8(bytes: Buffer): string | undefined {
  try {
    return STRICT_UTF8.decode(bytes);
  } catch {
    return undefined;
  }
}
