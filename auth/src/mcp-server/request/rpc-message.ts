import { isRecord } from '@notegate/kit';
import { requestError } from '../../errors/mcp-request-errors.js';
import { clip } from '../../shared/clip.js';

/** One JSON-RPC request (with id) or notification (without), typed at the boundary. */
export interface RpcMessage {
  readonly method: string;
  readonly id: string | number | undefined;
  readonly params: Readonly<Record<string, unknown>> | undefined;
}

export interface ToolCall {
  readonly name: string;
  readonly arguments: unknown;
}

/**
 * JSON-RPC 2.0 shape of the body. Batches are refused: 2026-07-28 allows
 * exactly one message per POST, and a batch would need a scope decision per
 * element. Responses from the client are refused too (the server never asks
 * the client anything).
 */
export function parseRpcMessage(body: unknown): RpcMessage {
  if (Array.isArray(body)) throw requestError('ERR_BATCH', `batch of ${body.length}`);
  if (!isRecord(body)) throw requestError('ERR_NOT_JSON_RPC', 'body is not a JSON object');
  const { jsonrpc, method, id, params } = body;
  if (jsonrpc !== '2.0') throw requestError('ERR_NOT_JSON_RPC', 'jsonrpc is not "2.0"');
  if (typeof method !== 'string' || method === '') throw requestError('ERR_NOT_JSON_RPC', 'method is absent');
  // MCP: request ids are strings or integers, never null.
  if (id !== undefined && typeof id !== 'string' && !Number.isInteger(id)) {
    throw requestError('ERR_NOT_JSON_RPC', `id ${clip(JSON.stringify(id) ?? '')} is not a string or integer`);
  }
  if (params !== undefined && !isRecord(params)) throw requestError('ERR_NOT_JSON_RPC', 'params is not an object');
  return { method, id: typeof id === 'string' || typeof id === 'number' ? id : undefined, params };
}

/** The tool a tools/call names; every tools/call must name one. Undefined for other methods. */
export function toolCallOf(message: RpcMessage): ToolCall | undefined {
  if (message.method !== 'tools/call') return undefined;
  const name = message.params?.name;
  if (typeof name !== 'string' || name === '') throw requestError('ERR_TOOL_NAME_MISSING', 'params.name is absent');
  return { name, arguments: message.params?.arguments };
}
