import { localhostAllowedHostnames, validateHostHeader, validateOriginHeader } from '@modelcontextprotocol/server';
import type { ApiErrorCode } from './api-errors.js';

/**
 * docs/retrieval.md#serving: binding to loopback does not stop DNS rebinding from a
 * browser tab. A request must name this server in `Host` by a loopback name
 * or by the address it is bound to, and a browser `Origin`, when present,
 * must be a loopback origin. The parsing is the MCP SDK's.
 */
export function allowedHostnames(bindHost: string): string[] {
  const own = bindHost.includes(':') && !bindHost.startsWith('[') ? `[${bindHost}]` : bindHost;
  return [...new Set([...localhostAllowedHostnames(), own.toLowerCase()])];
}

export function screenRequest(
  headers: { readonly host?: string; readonly origin?: string },
  hostnames: readonly string[],
): ApiErrorCode | undefined {
  if (!validateHostHeader(headers.host, [...hostnames]).ok) return 'forbidden_host';
  if (!validateOriginHeader(headers.origin, [...hostnames]).ok) return 'forbidden_origin';
  return undefined;
}
