import type { IncomingHttpHeaders } from 'node:http';
import { isJsonContentType } from '@modelcontextprotocol/server';
import { acceptListsMediaType } from '@notegate/kit/http';
import { requestError } from '../../errors/mcp-request-errors.js';
import { clip } from '../../shared/clip.js';

/** docs/protocol.md#limits: a request body is at most 1 MiB. */
export const BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * Checks that need only the headers, so a refused request costs no body read:
 * Origin (DNS-rebinding defence: a browser page of another origin must not
 * reach the server), a declared body over the limit, Content-Type and Accept
 * (the statuses the SDK transport would answer: 415 and 406).
 */
export function screenHeaders(headers: IncomingHttpHeaders, ownOrigin: string): void {
  checkOrigin(headers.origin, ownOrigin);
  const declared = Number(headers['content-length']);
  if (Number.isFinite(declared) && declared > BODY_LIMIT_BYTES) {
    throw requestError('ERR_BODY_TOO_LARGE', `declared Content-Length ${declared}`);
  }
  if (!isJsonContentType(headers['content-type'] ?? null)) {
    throw requestError('ERR_CONTENT_TYPE', `Content-Type is ${clip(headers['content-type'] ?? 'absent')}`);
  }
  // MCP Streamable HTTP: the client MUST list both media types in Accept (compared as media types).
  const { accept } = headers;
  if (!acceptListsMediaType(accept, 'application/json') || !acceptListsMediaType(accept, 'text/event-stream')) {
    throw requestError('ERR_ACCEPT', `Accept is ${clip(headers.accept ?? 'absent')}`);
  }
}

/** An absent Origin passes (non-browser clients send none); any other value must be exactly our origin. */
function checkOrigin(origin: string | undefined, ownOrigin: string): void {
  if (origin === undefined) return;
  let parsed: string;
  try {
    parsed = new URL(origin).origin;
  } catch {
    throw requestError('ERR_ORIGIN', `Origin ${clip(origin)} is not a URL`);
  }
  if (parsed !== ownOrigin) throw requestError('ERR_ORIGIN', `Origin ${clip(origin)} is not ${ownOrigin}`);
}
