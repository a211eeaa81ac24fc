import type { IncomingHttpHeaders } from 'node:http';
import { clip } from '../../shared/clip.js';

/** The MCP revision whose POSTs name their JSON-RPC method, and a tool call its tool, in headers. */
const HEADER_NAMING_REVISION = '2026-07-28';

/** What the `Mcp-Method` and `Mcp-Name` headers claim, clipped like every client string. */
export interface HeaderCall {
  readonly method: string;
  /** The tool of a `tools/call`, else null. */
  readonly tool: string | null;
}

/**
 * docs/protocol.md#bearer-checks: a 2026-07-28 POST names its method in `Mcp-Method` and, for
 * `tools/call`, the tool in `Mcp-Name`, so a request refused before its body is read can still be
 * audited with them. These are only the client's claims: once the
 * caller is authenticated the body decides (and the SDK refuses a body that disagrees with the headers).
 * A non-ASCII name arrives Base64-encoded (`=?base64?…?=`); it is kept as sent, since it can never
 * equal one of our ASCII tool names. Other revisions carry no such headers: undefined.
 */
export function headerCall(headers: IncomingHttpHeaders): HeaderCall | undefined {
  if (headers['mcp-protocol-version'] !== HEADER_NAMING_REVISION) return undefined;
  const method = headers['mcp-method'];
  if (typeof method !== 'string' || method === '') return undefined;
  const name = headers['mcp-name'];
  const tool = method === 'tools/call' && typeof name === 'string' && name !== '' ? clip(name) : null;
  return { method: clip(method), tool };
}
