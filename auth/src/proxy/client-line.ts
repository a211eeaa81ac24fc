import type { JSONRPCErrorResponse, JSONRPCMessage, RequestId } from '@modelcontextprotocol/client';
import { parseJSONRPCMessage } from '@modelcontextprotocol/client';
import { isRecord } from '@notegate/kit';
import { JSON_RPC } from '../errors/mcp-error-spec.js';

/** One line the stdio client wrote, read: a message to relay, or the error answer it gets instead. */
export type ClientLine =
  | { readonly kind: 'empty' }
  | { readonly kind: 'message'; readonly message: JSONRPCMessage }
  | { readonly kind: 'refused'; readonly reply: JSONRPCErrorResponse };

/**
 * MCP stdio framing: one JSON-RPC message per line. A line that is not JSON gets -32700 and one that
 * is JSON but not a JSON-RPC 2.0 message gets -32600 (JSON-RPC 2.0 §5.1); the proxy then reads on.
 * Batches are refused (MCP 2025-06-18 removed JSON-RPC batching). Blank lines are skipped.
 */
export function readClientLine(line: string): ClientLine {
  if (line.trim() === '') return { kind: 'empty' };
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { kind: 'refused', reply: errorReply(undefined, JSON_RPC.parseError, 'Parse error: the line is not JSON') };
  }
  if (Array.isArray(value)) {
    return { kind: 'refused', reply: invalidRequest(undefined, 'JSON-RPC batches are not part of MCP') };
  }
  try {
    return { kind: 'message', message: parseJSONRPCMessage(value) };
  } catch {
    return {
      kind: 'refused',
      reply: invalidRequest(requestIdOf(value), 'not a JSON-RPC 2.0 request, notification or response'),
    };
  }
}

/** A -32600 answer; `id` when the refused message carried a usable one. */
export function invalidRequest(id: RequestId | undefined, why: string): JSONRPCErrorResponse {
  return errorReply(id, JSON_RPC.invalidRequest, `Invalid Request: ${why}`);
}

/**
 * JSON-RPC 2.0 §5 wants `id: null` when the id could not be read; the MCP schema (2025-11-25 and
 * later) makes the id of an error response optional instead and rejects null, so it is left out.
 */
export function errorReply(
  id: RequestId | undefined,
  code: number,
  message: string,
  data?: Readonly<Record<string, unknown>>,
): JSONRPCErrorResponse {
  return {
    jsonrpc: '2.0',
    ...(id !== undefined && { id }),
    error: { code, message, ...(data !== undefined && { data }) },
  };
}

/** The id of an object that looks like a request: a string or an integer (MCP's RequestId). */
function requestIdOf(value: unknown): RequestId | undefined {
  if (!isRecord(value)) return undefined;
  const { id } = value;
  return typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id)) ? id : undefined;
}
