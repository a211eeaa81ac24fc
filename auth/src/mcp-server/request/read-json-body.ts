import type { IncomingMessage } from 'node:http';
import { BodyTooLargeError, readBody } from '@notegate/kit/http';
import { requestError } from '../../errors/mcp-request-errors.js';
import { BODY_LIMIT_BYTES } from './header-screening.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from './json-depth.js';

/**
 * Reads at most 1 MiB (stops buffering at the first byte past it) and parses it as JSON, once a
 * linear scan has found it nests at most 64 levels deep (docs/protocol.md#limits).
 */
export async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  let body: Buffer;
  try {
    body = await readBody(req, BODY_LIMIT_BYTES);
  } catch (err) {
    if (err instanceof BodyTooLargeError) throw requestError('ERR_BODY_TOO_LARGE', 'streamed body passed 1 MiB');
    throw err;
  }
  if (nestsDeeperThan(body, MAX_JSON_DEPTH)) {
    throw requestError('ERR_TOO_DEEP', `${body.length} bytes nesting past level ${MAX_JSON_DEPTH}`);
  }
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    throw requestError('ERR_NOT_JSON', `${body.length} bytes that do not parse as JSON`);
  }
}
