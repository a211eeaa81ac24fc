import { parseInteger, parsePort, UsageError } from '@notegate/kit/cli';
import type { RedisConnection } from '../authz/replay/redis-replay-store.js';
import { REDIS_REPLAY_CAPACITY, RedisReplayStore } from '../authz/replay/redis-replay-store.js';
import { REPLAY_CACHE_CAPACITY, ReplayCache } from '../authz/replay/replay-cache.js';
import type { ReplayStore } from '../authz/replay/replay-store.js';

/** docs/protocol.md#replay-store: a password not in the URL is taken from here. */
export const REDIS_PASSWORD_ENV = 'NOTEGATE_REDIS_PASSWORD';
const REDIS_DEFAULT_PORT = 6379;
const MAX_CAPACITY = 1_000_000_000;

export type ReplayStoreChoice =
  | { readonly kind: 'memory' }
  | { readonly kind: 'redis'; readonly connection: RedisConnection };

/**
 * `--replay-store memory|redis://[[user]:password@]host[:port][/db]|rediss://…`. Checked at start-up
 * without connecting: a store that is down at start is like one that goes down later (503 until it
 * is back), but a URL that cannot be right is an error naming the flag.
 */
export function parseReplayStore(flag: string, value: string, passwordEnv: string | undefined): ReplayStoreChoice {
  if (value === 'memory') return { kind: 'memory' };
  const expected = "(expected 'memory', redis://HOST[:PORT][/DB] or rediss://HOST[:PORT][/DB])";
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    // Shown without what could be a password: everything up to the last '@' (a password may hold '/').
    throw new UsageError(`${flag}: '${value.replace(/\/\/.*@/, '//…@')}' is not a URL ${expected}`);
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
    throw new UsageError(`${flag}: '${url.protocol}' is not allowed ${expected}`);
  }
  const shown = `${url.protocol}//${url.host}${url.pathname === '/' ? '' : url.pathname}`;
  if (url.hostname === '') throw new UsageError(`${flag}: '${shown}' has no host ${expected}`);
  if (url.search || url.hash) throw new UsageError(`${flag}: '${shown}' must not have a query or fragment`);
  const dbText = url.pathname.replace(/^\//, '');
  if (dbText.includes('/')) throw new UsageError(`${flag}: '${shown}': the path is the database number, e.g. /0`);
  const password = url.password === '' ? passwordEnv || undefined : decodedPart(flag, 'password', url.password);
  return {
    kind: 'redis',
    connection: {
      host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: url.port === '' ? REDIS_DEFAULT_PORT : parsePort(`${flag} port`, url.port),
      db: dbText === '' ? 0 : parseInteger(`${flag} database`, dbText, 0, 2 ** 31 - 1),
      tls: url.protocol === 'rediss:',
      username: url.username === '' ? undefined : decodedPart(flag, 'user name', url.username),
      password,
      display: shown,
    },
  };
}

/** A percent-encoded part of the URL; a stray '%' is a usage error that never shows the part. */
function decodedPart(flag: string, part: string, encoded: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    throw new UsageError(`${flag}: the ${part} is not percent-encoded correctly (write '%' as %25)`);
  }
}

/** `--replay-capacity N`; without it, the default of the store chosen. */
export function parseReplayCapacity(flag: string, value: string | undefined, store: ReplayStoreChoice): number {
  if (value !== undefined) return parseInteger(flag, value, 1, MAX_CAPACITY);
  return store.kind === 'memory' ? REPLAY_CACHE_CAPACITY : REDIS_REPLAY_CAPACITY;
}

/** Opens the store chosen; Redis connects in the background and reports through `onEvent`. */
export function openReplayStore(
  choice: ReplayStoreChoice,
  options: { readonly capacity: number; readonly namespace: string; readonly onEvent: (message: string) => void },
): ReplayStore {
  if (choice.kind === 'memory') return new ReplayCache({ capacity: options.capacity });
  return new RedisReplayStore({
    connection: choice.connection,
    namespace: options.namespace,
    capacity: options.capacity,
    onEvent: options.onEvent,
  });
}
