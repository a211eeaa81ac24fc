import { randomFillSync } from 'node:crypto';

const POOL_BYTES = 4096;
const pool = Buffer.alloc(POOL_BYTES);
let offset = POOL_BYTES;

/**
 * `bytes` bytes from the CSPRNG as lowercase hex. Bytes are drawn from a pool refilled 4 KiB at a
 * time (as node:crypto's randomUUID does): one randomBytes call per token costs ten times more.
 * Each byte is handed out once.
 */
export function randomHex(bytes: number): string {
  if (bytes > POOL_BYTES) return randomFillSync(Buffer.alloc(bytes)).toString('hex');
  if (offset + bytes > POOL_BYTES) {
    randomFillSync(pool);
    offset = 0;
  }
  const hex = pool.toString('hex', offset, offset + bytes);
  offset += bytes;
  return hex;
}
