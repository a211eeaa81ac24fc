import { parseInteger } from './cli/values.js';
import { DEFAULT_MAX_CONNECTIONS, type ServerLimits } from './http/bounded-server.js';

/** Ours: far above what one process serves well, far below a default file-descriptor limit. */
const MAX_CONNECTIONS_LIMIT = 65_536;

/** The option every server command has (docs/security.md#security-properties), listed in its --help. */
export const serverLimitOptions = {
  'max-connections': {
    type: 'string',
    valueName: 'N',
    default: String(DEFAULT_MAX_CONNECTIONS),
    description: `Connections served at once, 1 to ${MAX_CONNECTIONS_LIMIT}; a request on a connection beyond them gets 503.`,
  },
} as const;

/** `--max-connections`, validated; the request bound stays the built-in one. */
export function parseServerLimits(values: {
  readonly 'max-connections': string;
}): Pick<ServerLimits, 'maxConnections'> {
  return { maxConnections: parseInteger('--max-connections', values['max-connections'], 1, MAX_CONNECTIONS_LIMIT) };
}
