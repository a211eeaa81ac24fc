import { UsageError } from './usage-error.js';

/** Option value parsers: each throws a UsageError naming the flag and what it accepts. */

export function parseHttpUrl(flag: string, value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`${flag}: '${value}' is not an absolute URL (expected http:// or https://)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`${flag}: '${value}' must use http or https`);
  }
  if (url.hash || value.includes('#')) throw new UsageError(`${flag}: '${value}' must not have a fragment`);
  if (url.username || url.password) throw new UsageError(`${flag}: '${value}' must not carry credentials`);
  return url;
}

export function parseInteger(flag: string, value: string, min: number, max: number): number {
  if (!/^-?\d+$/.test(value.trim())) {
    throw new UsageError(`${flag}: '${value}' is not an integer (allowed: ${min} to ${max})`);
  }
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw new UsageError(`${flag}: ${value} is out of range (allowed: ${min} to ${max})`);
  }
  return n;
}

export function parsePort(flag: string, value: string): number {
  return parseInteger(flag, value, 0, 65535);
}

export function parseChoice<T extends string>(flag: string, value: string, allowed: readonly T[]): T {
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new UsageError(`${flag}: '${value}' is not allowed (allowed: ${allowed.join(', ')})`);
}

/**
 * Where a server whose public URL is `url` listens unless told otherwise: --host, else the URL's host
 * (an IPv6 literal without brackets); --port, else the URL's port or its scheme's default.
 */
export function listenAddressOf(
  url: URL,
  host: string | undefined,
  port: string | undefined,
): { readonly host: string; readonly port: number } {
  const urlPort = url.port !== '' ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  return {
    host: host ?? url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: port === undefined ? urlPort : parsePort('--port', port),
  };
}
