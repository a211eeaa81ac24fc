import { readFileSync, statSync } from 'node:fs';
import { errorMessage } from '@notegate/kit';
import { parseInteger, parsePort, UsageError } from '@notegate/kit/cli';
import { evictionProblem } from '../authz/replay/eviction-guard.js';
import type { RedisConnection } from '../authz/replay/redis-replay-store.js';
import { REDIS_REPLAY_CAPACITY, RedisReplayStore } from '../authz/replay/redis-replay-store.js';
import { REPLAY_CACHE_CAPACITY, ReplayCache } from '../authz/replay/replay-cache.js';
import type { ReplayStore } from '../authz/replay/replay-store.js';

/** docs/protocol.md#replay-store: the password, when no file names it, is taken from here. */
export const REDIS_PASSWORD_ENV = 'NOTEGATE_REDIS_PASSWORD';
const REDIS_DEFAULT_PORT = 6379;
const MAX_CAPACITY = 1_000_000_000;
/** A password file is a line; anything larger was named by mistake. */
const MAX_PASSWORD_FILE_BYTES = 64 * 1024;
const EXPECTED = "(expected 'memory', redis://HOST[:PORT][/DB] or rediss://HOST[:PORT][/DB])";

export type ReplayStoreChoice =
  | { readonly kind: 'memory' }
  | {
      readonly kind: 'redis';
      readonly connection: RedisConnection;
      /** Where the password came from; `url` puts it in every local user's `ps`, which authz warns about. */
      readonly passwordFrom: 'url' | 'outside' | 'none';
    };

/**
 * `--replay-store memory|redis://[[user]:password@]host[:port][/db]|rediss://…`. Checked at start-up
 * without connecting: a store that is down at start is like one that goes down later (503 until it
 * is back), but a URL that cannot be right is an error naming the flag. `password` is the one given
 * outside the URL (a file or the environment, see readRedisPassword); a URL may not carry another.
 * No message shows what could be a password: see shownValue.
 */
export function parseReplayStore(flag: string, value: string, password: string | undefined): ReplayStoreChoice {
  if (value === 'memory') return { kind: 'memory' };
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`${flag}: '${shownValue(value)}' is not a URL ${EXPECTED}`);
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
    throw new UsageError(`${flag}: '${url.protocol}' is not allowed ${EXPECTED}`);
  }
  if (url.hostname === '') throw new UsageError(`${flag}: '${shownValue(value)}' has no host ${EXPECTED}`);
  const shown = `${url.protocol}//${url.host}${url.pathname === '/' ? '' : url.pathname}`;
  if (url.search || url.hash) throw new UsageError(`${flag}: '${shown}' must not have a query or fragment`);
  const dbText = url.pathname.replace(/^\//, '');
  if (dbText.includes('/')) throw new UsageError(`${flag}: '${shown}': the path is the database number, e.g. /0`);
  if (url.password !== '' && password !== undefined) {
    throw new UsageError(
      `${flag}: '${shown}' carries a password, and so does the password file or ${REDIS_PASSWORD_ENV}; give it one way`,
    );
  }
  return {
    kind: 'redis',
    connection: {
      host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: url.port === '' ? REDIS_DEFAULT_PORT : parsePort(`${flag} port`, url.port),
      db: dbText === '' ? 0 : parseInteger(`${flag} database`, dbText, 0, 2 ** 31 - 1),
      tls: url.protocol === 'rediss:',
      username: url.username === '' ? undefined : decodedPart(flag, 'user name', url.username),
      password: url.password === '' ? password : decodedPart(flag, 'password', url.password),
      display: shown,
    },
    passwordFrom: url.password !== '' ? 'url' : password === undefined ? 'none' : 'outside',
  };
}

/**
 * A value as a message may quote it: everything between the scheme and the last '@' is left out, as
 * it may hold a user name and password, whatever else is wrong with the value (`redis:pw@host`,
 * `redis:/:pw@host` and `redis//:pw@host` parse as no URL or as one without a host).
 */
export function shownValue(value: string): string {
  const at = value.lastIndexOf('@');
  if (at === -1) return value;
  const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:\/*/.exec(value)?.[0] ?? '';
  return `${scheme}…${value.slice(at)}`;
}

/**
 * The Redis password given outside `--replay-store` (docs/protocol.md#replay-store): the content of
 * `--replay-store-password-file` (one line; its line end is dropped), else `NOTEGATE_REDIS_PASSWORD`.
 * Both at once is an error: which one wins would be a guess. Empty means none.
 */
export function readRedisPassword(
  fileFlag: string,
  filePath: string | undefined,
  fromEnv: string | undefined,
): string | undefined {
  if (filePath === undefined) return fromEnv || undefined;
  if (fromEnv) throw new UsageError(`${fileFlag}: ${REDIS_PASSWORD_ENV} is set too; give the password one way`);
  let text: string;
  try {
    const info = statSync(filePath);
    if (!info.isFile()) throw new Error('not a regular file');
    if (info.size > MAX_PASSWORD_FILE_BYTES) throw new Error(`larger than ${MAX_PASSWORD_FILE_BYTES} bytes`);
    text = readFileSync(filePath, 'utf8');
  } catch (err) {
    throw new UsageError(`${fileFlag} ${filePath}: cannot read the password: ${errorMessage(err)}`);
  }
  const password = text.replace(/\r?\n$/, '');
  if (password === '') throw new UsageError(`${fileFlag} ${filePath}: the file is empty`);
  return password;
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

/**
 * docs/protocol.md#replay-store: how long start-up waits for a Redis store's first answer about its
 * eviction policy; one that has not connected by then is used once it does (503 until then).
 */
const STARTUP_EVICTION_CHECK_WAIT_MS = 2_000;

/**
 * Opens the store chosen; Redis connects in the background and reports through `onEvent`. In reject
 * mode (`requireNoEviction`), a Redis server that answers within a moment that it may evict keys (or
 * will not say) is a start-up error naming the setting.
 */
export async function openReplayStore(
  choice: ReplayStoreChoice,
  options: {
    readonly capacity: number;
    readonly namespace: string;
    readonly requireNoEviction: boolean;
    readonly onEvent: (message: string) => void;
  },
): Promise<ReplayStore> {
  if (choice.kind === 'memory') return new ReplayCache({ capacity: options.capacity });
  const store = new RedisReplayStore({ connection: choice.connection, ...options });
  if (!options.requireNoEviction) return store;
  const check = await store.firstEvictionCheck(STARTUP_EVICTION_CHECK_WAIT_MS);
  const problem = check === undefined ? undefined : evictionProblem(check);
  if (problem !== undefined) {
    await store.close();
    throw new UsageError(
      `--replay-store ${choice.connection.display}: ${problem}; or run --svid-replay allow-reuse-within-lifetime`,
    );
  }
  return store;
}
