import type { Readable, Writable } from 'node:stream';
import type { FetchLike } from '@modelcontextprotocol/client';
import { describeThrown } from '@notegate/kit';
import { AgentError, plain } from '../agent/agent-errors.js';
import type { AccessToken } from '../agent/token-request.js';
import type { AuditLog } from '../audit/audit-log.js';
import type { Clock } from '../shared/clock.js';
import { systemClock } from '../shared/clock.js';
import { Relay } from './relay.js';
import type { ChannelEnd } from './stdio-channel.js';
import { StdioChannel } from './stdio-channel.js';
import { TokenKeeper } from './token-keeper.js';
import { Upstream } from './upstream.js';

/** Ours: replace the token once a minute of it is left; requests go on using it until shortly before expiry. */
export const PROXY_REFRESH_MARGIN_MS = 60_000;
/** Ours: after stdin closes, requests in flight get this long to be answered; the proxy is gone within 5 s. */
const STDIN_CLOSED_GRACE_MS = 3_000;

export interface ProxyConfig {
  readonly resource: string;
  /** One run of the discovery chain (fetchAccessToken). */
  readonly fetchToken: () => Promise<AccessToken>;
  readonly refreshMarginMs: number;
  /** Bound of each upstream request, answer included. */
  readonly timeoutMs: number;
  readonly input: Readable;
  readonly output: Writable;
  /** One line for the operator: stderr, never stdout (the protocol). */
  readonly log: (line: string) => void;
  /** Receives a deny line (component `proxy`) for every failed token fetch. */
  readonly audit: AuditLog;
  /** Resolves when the proxy is asked to stop (a signal). */
  readonly stopRequested?: Promise<string>;
  readonly fetch?: FetchLike;
  readonly clock?: Clock;
}

/**
 * notegate proxy (docs/protocol.md#proxy): a stdio MCP server that relays every message to the
 * protected Streamable HTTP server at `resource`, with an access token from the agent's discovery
 * chain. Runs until stdin closes (then in-flight requests get a short grace), stdout fails or a stop
 * is requested; resolves with the exit code.
 */
export async function runProxy(config: ProxyConfig): Promise<number> {
  const clock = config.clock ?? systemClock;
  const tokens = new TokenKeeper({
    fetchToken: config.fetchToken,
    refreshMarginMs: config.refreshMarginMs,
    clock,
    onToken: (token) =>
      config.log(
        `access token from ${token.issuer} for ${token.resource}: scope "${token.scope}", ` +
          `expires ${token.expiresAt.toISOString()}`,
      ),
    onFailure: (err) => reportTokenFailure(config, err),
  });
  const context = () => ({ resource: config.resource, tokenScope: tokens.scope });
  let relay: Relay | undefined;
  const upstream = new Upstream({
    resource: config.resource,
    tokens,
    ...(config.fetch && { fetch: config.fetch }),
    onMessage: (message) => relay?.fromUpstream(message),
    onError: (err) => config.log(`upstream: ${plain(describeThrown(err))}`),
  });
  await upstream.start();
  const channel = new StdioChannel(config.input, config.output, (message) => relay?.fromClient(message), {
    hasRoom: () => relay?.hasRoom() ?? true,
  });
  relay = new Relay({
    upstream,
    write: (message) => channel.write(message),
    log: config.log,
    timeoutMs: config.timeoutMs,
    context,
    onRoom: () => channel.wake(),
  });
  tokens.prefetch();
  config.log(`relaying stdio to ${config.resource}`);
  const why = await Promise.race([channel.ended, config.stopRequested ?? new Promise<never>(() => undefined)]);
  channel.stop();
  await drain(relay, why, config.log);
  relay.abandon();
  await upstream.close();
  return 0;
}

/** stdin closed: answers still on their way get a short grace; anything else stops at once. */
async function drain(relay: Relay, why: ChannelEnd | string, log: (line: string) => void): Promise<void> {
  if (why !== 'input_closed') {
    log(why === 'output_failed' ? 'stdout is closed; stopping' : `${why}; stopping`);
    return;
  }
  log(relay.inFlight === 0 ? 'stdin closed; stopping' : `stdin closed; waiting for ${relay.inFlight} answer(s)`);
  let timer: NodeJS.Timeout | undefined;
  const grace = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, STDIN_CLOSED_GRACE_MS);
  });
  await Promise.race([relay.idle(), grace]);
  clearTimeout(timer);
}

/** docs/protocol.md#proxy: a failed token fetch is an audit line and a line on stderr; never the token. */
function reportTokenFailure(config: ProxyConfig, err: unknown): void {
  const message = err instanceof AgentError ? err.message : describeThrown(err);
  const reason = err instanceof AgentError ? err.reason : 'token_failed';
  config.log(`cannot get an access token: ${message}`);
  config.audit.record({
    component: 'proxy',
    spiffeId: null,
    tool: null,
    decision: 'deny',
    reason: `${reason}: ${message}`,
    extra: { resource: config.resource },
  });
}
