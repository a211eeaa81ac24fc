import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: OutgoingHttpHeaders = {}): void {
  const payload = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(payload),
    ...headers,
  });
  res.end(payload);
}

/**
 * Ends a response to a request whose body was not read (for example a 413):
 * the connection is closed after the response so unread bytes are discarded.
 */
export function sendJsonAndClose(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: OutgoingHttpHeaders = {},
): void {
  res.shouldKeepAlive = false;
  sendJson(res, status, body, { ...headers, Connection: 'close' });
}
