import type { IncomingHttpHeaders, ServerResponse } from 'node:http';

/**
 * What a screened request accepts, as the SDK is told: the screening matched the client's Accept by
 * media type (RFC 9110 §12.5.1), and the SDK's own check looks for these substrings.
 */
const SCREENED_ACCEPT = 'application/json, text/event-stream';

/**
 * The web-standard Request the SDK reads. Only the headers the MCP transport
 * uses are copied (the Content-Type and the Mcp-* request metadata), and Accept
 * is the one the screening let through; Authorization and Cookie never reach
 * the SDK or the tools, so the incoming token is not forwarded anywhere.
 */
export function toSdkRequest(url: string, headers: IncomingHttpHeaders, signal: AbortSignal): Request {
  const forwarded = new Headers({ accept: SCREENED_ACCEPT });
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value !== 'string') continue;
    if (name === 'content-type' || name.startsWith('mcp-')) forwarded.set(name, value);
  }
  return new Request(url, { method: 'POST', headers: forwarded, signal });
}

/** Writes the SDK's Response (a single JSON body, or none for 202) to the Node response. */
export async function writeWebResponse(res: ServerResponse, response: Response): Promise<void> {
  const body = Buffer.from(await response.arrayBuffer());
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (name !== 'content-length' && name !== 'transfer-encoding') headers[name] = value;
  });
  res.writeHead(response.status, { ...headers, 'Content-Length': String(body.length) });
  res.end(body);
}

/** An AbortSignal that fires when the client goes away before the response is finished. */
export function abortOnDisconnect(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}
