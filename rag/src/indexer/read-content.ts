import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { runSteps, type Steps } from '@notegate/kit';
import { describeFsError } from '../walk/walk-vault.js';

export type ContentRead =
  | { readonly ok: true; readonly bytes: Buffer; readonly sha256: string }
  | { readonly ok: false; readonly detail: string };

/**
 * Ours: bytes hashed or decoded in one step (about a millisecond): a large note is hashed and decoded
 * in steps between which an index run gives the event loop a turn (docs/retrieval.md#index-runs).
 */
const BYTES_PER_STEP = 1024 * 1024;

/**
 * Reads a file, then hashes it in steps run by `run`. A file the walk found larger than a step is
 * read off the event loop's thread; smaller ones at once (quicker for the many small notes).
 */
export async function readContent(
  realPath: string,
  walkedBytes: number,
  run: (steps: Steps<string>) => Promise<string>,
): Promise<ContentRead> {
  let bytes: Buffer;
  try {
    bytes = walkedBytes > BYTES_PER_STEP ? await readFile(realPath) : readFileSync(realPath);
  } catch (err) {
    return { ok: false, detail: describeFsError(err) };
  }
  return { ok: true, bytes, sha256: await run(sha256Steps(bytes)) };
}

function* sha256Steps(bytes: Buffer): Steps<string> {
  const hash = createHash('sha256');
  for (let at = 0; at < bytes.length; at += BYTES_PER_STEP) {
    hash.update(bytes.subarray(at, at + BYTES_PER_STEP));
    yield;
  }
  return hash.digest('hex');
}

/** Strict UTF-8 (a leading BOM is dropped); undefined when the bytes are not UTF-8. */
export function decodeUtf8(bytes: Buffer): string | undefined {
  return runSteps(utf8Steps(bytes));
}

/** `decodeUtf8` as steps, one per BYTES_PER_STEP. */
export function* utf8Steps(bytes: Buffer): Steps<string | undefined> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const parts: string[] = [];
  try {
    for (let at = 0; at < bytes.length; at += BYTES_PER_STEP) {
      parts.push(decoder.decode(bytes.subarray(at, at + BYTES_PER_STEP), { stream: true }));
      yield;
    }
    parts.push(decoder.decode());
  } catch {
    return undefined;
  }
  return parts.join('');
}
