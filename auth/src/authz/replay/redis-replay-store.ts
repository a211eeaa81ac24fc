import { Redis, ReplyError } from 'ioredis';
import type { Clock } from '../../shared/clock.js';
import { systemClock } from '../../shared/clock.js';
import type { EvictionCheck } from './eviction-guard.js';
import { EvictionGuard, evictionProblem, SAFE_EVICTION_POLICY } from './eviction-guard.js';
import { reportConnection, storeError } from './redis-connection.js';
import type { RecordResult, ReplayEntry, ReplayStore } from './replay-store.js';
import { FIRST_USE, replayKey, SHARE_FULL, STORE_FULL } from './replay-store.js';

/** docs/protocol.md#replay-store: the default bound of a shared store's live entries. */
export const REDIS_REPLAY_CAPACITY = 1_000_000;
/** docs/protocol.md#replay-store: a store that has not answered by then is treated as down (503). */
const REDIS_COMMAND_TIMEOUT_MS = 200;
/** A connection with commands outstanding and no byte received for this long is dropped and rebuilt. */
const SOCKET_TIMEOUT_MS = 1_000;
const CONNECT_TIMEOUT_MS = 1_000;
/** docs/protocol.md#replay-store: the eviction policy is read on every connection and this often while connected. */
const EVICTION_CHECK_INTERVAL_MS = 10_000;
/** Reconnect delays double from 50 ms up to this, so a restarted store is used again within a second. */
const MAX_RECONNECT_DELAY_MS = 1_000;

/** Where the store is: `redis://` or `rediss://` (TLS), a database number, optional credentials. */
export interface RedisConnection {
  readonly host: string;
  readonly port: number;
  readonly db: number;
  readonly tls: boolean;
  readonly username: string | undefined;
  readonly password: string | undefined;
  /** The URL without its password, for messages. */
  readonly display: string;
}

export interface RedisReplayStoreOptions {
  readonly connection: RedisConnection;
  /**
   * Keys are `notegate:replay:<namespace> <SPIFFE ID> <id>` and the shares `notegate:replay-share:<namespace>
   * <SPIFFE ID>`: the namespace is the issuer, so two services can share a server.
   */
  readonly namespace: string;
  readonly capacity?: number;
  readonly commandTimeoutMs?: number;
  readonly clock?: Clock;
  /** Connection changes (connected, lost, refused) and eviction-policy findings, each told once, for the operator's log. */
  readonly onEvent?: (message: string) => void;
  /**
   * Reject mode: refuse every record (ReplayStoreError) while the server is not known to keep every
   * key (maxmemory-policy noeviction). Otherwise an evicting policy is only reported. Default true.
   */
  readonly requireNoEviction?: boolean;
}

/**
 * One atomic step in the server, so replicas never both accept one assertion and both bounds hold
 * across them (docs/protocol.md#replay-store). KEYS[1] is the entry, KEYS[2] its owner's share: a
 * sorted set of the owner's entries scored by deadline on the server's clock (TIME), so replicas with
 * skewed clocks agree on what expired. A key seen before counts the use and keeps the later deadline
 * (PEXPIRE GT). A new key is refused when its owner already holds ARGV[3] live entries (-1), or when
 * the database holds ARGV[2] keys (DBSIZE, which also counts expired keys not reclaimed yet and the
 * share sets: the bound errs on the safe side; 0); else it is written with SET NX PX and joins the
 * share, whose expired members go then. The checks only read, so the first write is the SET, which
 * Redis refuses when it is out of memory (a script may write on once it has written).
 * Returns the uses so far, 0 for "full" or -1 for "share full".
 */
const RECORD_SCRIPT = `
local time = redis.call('TIME')
local now_ms = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local ttl_ms = tonumber(ARGV[1])
local function keep_share()
  redis.call('ZADD', KEYS[2], 'GT', now_ms + ttl_ms, ARGV[4])
  if redis.call('PTTL', KEYS[2]) < ttl_ms then redis.call('PEXPIRE', KEYS[2], ttl_ms) end
end
if redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('PEXPIRE', KEYS[1], ttl_ms, 'GT')
  keep_share()
  return redis.call('INCR', KEYS[1])
end
if redis.call('ZCOUNT', KEYS[2], '(' .. now_ms, '+inf') >= tonumber(ARGV[3]) then return -1 end
if redis.call('DBSIZE') >= tonumber(ARGV[2]) then return 0 end
redis.call('SET', KEYS[1], 1, 'NX', 'PX', ttl_ms)
keep_share()
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now_ms)
return 1
`;

type ScriptedRedis = Redis & {
  notegateRecord(
    entryKey: string,
    shareKey: string,
    ttlMs: number,
    capacity: number,
    shareLimit: number,
    member: string,
  ): Promise<number>;
};

/**
 * The replay store on Redis (or Valkey) shared by every replica of one issuer. It fails closed and
 * never queues: with no connection a record fails at once, an answer later than the command timeout
 * fails it, and a failure is a ReplayStoreError (the token endpoint answers 503). In reject mode a
 * server that may evict keys fails it too (EvictionGuard). The client reconnects by itself.
 */
export class RedisReplayStore implements ReplayStore {
  readonly kind = 'redis';
  readonly capacity: number;
  readonly #redis: ScriptedRedis;
  readonly #stopReporting: () => void;
  readonly #prefix: string;
  readonly #sharePrefix: string;
  readonly #clock: Clock;
  readonly #guard: EvictionGuard;
  readonly #requireNoEviction: boolean;
  readonly #evictionTimer: NodeJS.Timeout;

  constructor(options: RedisReplayStoreOptions) {
    const { connection } = options;
    this.capacity = options.capacity ?? REDIS_REPLAY_CAPACITY;
    this.#prefix = `notegate:replay:${options.namespace} `;
    this.#sharePrefix = `notegate:replay-share:${options.namespace} `;
    this.#clock = options.clock ?? systemClock;
    this.#redis = new Redis({
      host: connection.host,
      port: connection.port,
      db: connection.db,
      ...(connection.username === undefined ? {} : { username: connection.username }),
      ...(connection.password === undefined ? {} : { password: connection.password }),
      ...(connection.tls ? { tls: { servername: connection.host } } : {}),
      commandTimeout: options.commandTimeoutMs ?? REDIS_COMMAND_TIMEOUT_MS,
      socketTimeout: SOCKET_TIMEOUT_MS,
      connectTimeout: CONNECT_TIMEOUT_MS,
      // Fail, do not wait: no offline queue, no retry of a command across reconnects.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
      retryStrategy: (attempt) => Math.min(50 * 2 ** Math.min(attempt, 10), MAX_RECONNECT_DELAY_MS),
      scripts: { notegateRecord: { lua: RECORD_SCRIPT, numberOfKeys: 2 } },
    }) as ScriptedRedis;
    const onEvent = options.onEvent ?? (() => {});
    this.#requireNoEviction = options.requireNoEviction ?? true;
    this.#guard = new EvictionGuard({
      readInfo: () => this.#redis.info('memory'),
      isReply: (err) => err instanceof ReplyError,
      clock: this.#clock,
      onChange: (check, previous) => {
        // A server found safe at its first look is the normal case, not news.
        if (check.kind !== 'safe' || previous.kind !== 'unchecked') {
          onEvent(`replay store ${connection.display}: ${this.#describe(check)}`);
        }
      },
    });
    // Registered before the connection reports: a record that follows "connected" finds the check under way.
    this.#redis.on('ready', () => void this.#guard.check());
    this.#evictionTimer = setInterval(() => {
      if (this.#redis.status === 'ready') void this.#guard.check();
    }, EVICTION_CHECK_INTERVAL_MS);
    this.#evictionTimer.unref();
    this.#stopReporting = reportConnection(this.#redis, connection.display, onEvent);
  }

  /**
   * The server's first answer about its eviction policy, or undefined when none came within
   * `waitMs` (no connection yet: the store is then used once it connects and is found safe).
   */
  firstEvictionCheck(waitMs: number): Promise<EvictionCheck | undefined> {
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), waitMs);
    });
    return Promise.race([this.#guard.firstAnswer(), waited]).finally(() => clearTimeout(timer));
  }

  async record(entry: ReplayEntry, shareLimit: number): Promise<RecordResult> {
    if (this.#requireNoEviction) await this.#guard.require();
    const ttlMs = Math.max(1, Math.ceil(entry.untilMs - this.#clock()));
    const entryKey = `${this.#prefix}${replayKey(entry)}`;
    const shareKey = `${this.#sharePrefix}${entry.owner}`;
    let uses: number;
    try {
      uses = await this.#redis.notegateRecord(entryKey, shareKey, ttlMs, this.capacity, shareLimit, entry.id);
    } catch (err) {
      throw storeError(err);
    }
    if (uses === -1) return SHARE_FULL;
    if (uses === 0) return STORE_FULL;
    return uses === 1 ? FIRST_USE : { kind: 'seen', uses };
  }

  async liveEntries(): Promise<number> {
    try {
      return await this.#redis.dbsize();
    } catch (err) {
      throw storeError(err);
    }
  }

  #describe(check: EvictionCheck): string {
    const problem = evictionProblem(check);
    if (problem === undefined) return `maxmemory-policy is ${SAFE_EVICTION_POLICY}`;
    if (this.#requireNoEviction) return `${problem}; token requests get 503 until it is`;
    return check.kind === 'evicting'
      ? `maxmemory-policy is ${check.policy}: evicted entries make the svid_uses of the audit lines undercount`
      : problem;
  }

  async close(): Promise<void> {
    // A shutdown is not an outage: no "connection lost" line for the close this causes.
    this.#stopReporting();
    clearInterval(this.#evictionTimer);
    this.#redis.disconnect();
  }
}
