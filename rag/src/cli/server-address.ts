import { parsePort, UsageError } from '@notegate/kit/cli';
import type { RagEnvironment } from '../config/environment.js';

export const DEFAULT_PORT = 8765;
export const DEFAULT_HOST = '127.0.0.1';

export interface ServerAddress {
  readonly host: string;
  readonly port: number;
}

/**
 * docs/retrieval.md#search-api: `--port`, then NOTEGATE_SERVER_PORT,
 * then 8765; `--host`, then NOTEGATE_SERVER_HOST, then 127.0.0.1. A port that
 * does not parse is a start-up error naming where it came from, never a
 * fallback to the next source.
 */
export function serverAddress(
  flags: { readonly port: string | undefined; readonly host: string | undefined },
  environment: Pick<RagEnvironment, 'serverPort' | 'serverHost'>,
): ServerAddress {
  const port =
    flags.port !== undefined
      ? parsePort('--port', flags.port)
      : environment.serverPort !== undefined
        ? parsePort('NOTEGATE_SERVER_PORT', environment.serverPort)
        : DEFAULT_PORT;
  const host = flags.host ?? environment.serverHost ?? DEFAULT_HOST;
  if (host.trim() === '') throw new UsageError('--host: must not be empty');
  return { host, port };
}
