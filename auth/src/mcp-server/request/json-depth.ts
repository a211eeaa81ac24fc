/** docs/protocol.md#limits: no MCP message of ours nests anywhere near this deep. */
export const MAX_JSON_DEPTH = 64;

const OPEN_ARRAY = 0x5b; // [
const OPEN_OBJECT = 0x7b; // {
const CLOSE_ARRAY = 0x5d; // ]
const CLOSE_OBJECT = 0x7d; // }
const QUOTE = 0x22; // "
const BACKSLASH = 0x5c; // \

/**
 * Whether `json` opens more than `maxDepth` arrays or objects inside each other, found in one pass
 * over the bytes without recursion or allocation, before JSON.parse builds anything. Brackets inside
 * strings do not count. Structural characters are ASCII, which never occurs inside a UTF-8 multi-byte
 * sequence, so the bytes need no decoding. Malformed JSON is left for JSON.parse to refuse.
 */
export function nestsDeeperThan(json: Uint8Array, maxDepth: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < json.length; i++) {
    const byte = json[i];
    if (inString) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) {
      inString = true;
    } else if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) {
      depth++;
      if (depth > maxDepth) return true;
    } else if (byte === CLOSE_ARRAY || byte === CLOSE_OBJECT) {
      depth--;
    }
  }
  return false;
}
