import { describeThrown } from '@notegate/kit';
import { AGENT_EXIT, AgentError } from '../agent/agent-errors.js';
import type { AccessToken } from '../agent/token-request.js';
import type { BackoffPolicy } from '../shared/backoff.js';
import type { Clock } from '../shared/clock.js';
import { systemClock } from '../shared/clock.js';
import { RefreshScheduler } from './refresh-scheduler.js';
import type { ChildExit } from './supervised-child.js';
import { exitCodeFor, SpawnError, SupervisedChild } from './supervised-child.js';
import type { Timers } from './timers.js';
import { systemTimers } from './timers.js';
import { TokenFile } from './token-file.js';

/** The signals the wrapper forwards to the child (and which stop it before the child exists). */
const FORWARDED_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/** Where signals come from: the process, or an emitter in tests. */
export interface SignalSource {
  on(signal: NodeJS.Signals, listener: (signal: NodeJS.Signals) => void): unknown;
  off(signal: NodeJS.Signals, listener: (signal: NodeJS.Signals) => void): unknown;
}

export interface WrapperConfig {
  readonly command: string;
  readonly args: readonly string[];
  /** A token for the resource (the agent's steps, through a cache with `refreshMarginMs`). */
  readonly fetchToken: () => Promise<AccessToken>;
  readonly refreshMarginMs: number;
  /** Token file path; default: `access-token` in a new private directory. */
  readonly tokenFilePath: string | undefined;
  /** Name of the environment variable that gives the child the token file's path. */
  readonly tokenFileEnv: string;
  /** Also put the token itself in this variable (never refreshed). */
  readonly exportTokenEnv: string | undefined;
  readonly gracePeriodMs: number;
  /** The environment the child inherits (plus the variables above). */
  readonly env: NodeJS.ProcessEnv;
  /** One line for the operator (stderr); never stdout, which belongs to the child's MCP stream. */
  readonly log: (line: string) => void;
  readonly clock?: Clock;
  readonly timers?: Timers;
  readonly retryBackoff?: BackoffPolicy;
  readonly signals?: SignalSource;
}

/**
 * mcp-svid-stdio: gets a token, writes the token file, starts the child with the file's path in its
 * environment, keeps the file fresh, forwards SIGINT/SIGTERM/SIGHUP, and exits with the child's exit
 * code (128 + n for a signal death). If the token expires without a successful refresh, the file is
 * deleted, the child stopped (SIGTERM, then SIGKILL after the grace period) and the wrapper fails.
 * The token file (and the private directory) is removed on every path out.
 */
export async function runWrapper(config: WrapperConfig): Promise<number> {
  const timers = config.timers ?? systemTimers;
  const signals = config.signals ?? process;
  let child: SupervisedChild | undefined;
  let received: NodeJS.Signals | undefined;
  let wakeOnSignal: () => void = () => undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    received ??= signal;
    if (child) child.signal(signal);
    else wakeOnSignal();
  };
  for (const signal of FORWARDED_SIGNALS) signals.on(signal, onSignal);
  const interrupted = new Promise<undefined>((resolve) => {
    wakeOnSignal = () => resolve(undefined);
  });
  let tokenFile: TokenFile | undefined;
  // Last resort if the process dies on an unexpected error before the finally below runs.
  const onExit = () => tokenFile?.removeSync();
  process.once('exit', onExit);
  try {
    tokenFile = await TokenFile.create(config.tokenFilePath);
    const fetching = config.fetchToken();
    // A fetch that fails after a signal stopped the wait must not become an unhandled rejection.
    fetching.catch(() => undefined);
    const first = await Promise.race([fetching, interrupted]);
    if (first === undefined) return exitCodeFor({ code: null, signal: received ?? null });
    await tokenFile.write(first.accessToken);
    if (received !== undefined) return exitCodeFor({ code: null, signal: received });
    if (config.exportTokenEnv !== undefined) {
      config.log(exportWarning(config.exportTokenEnv, first, config.tokenFileEnv));
    }
    child = await startChild(config, tokenFile.path, first);
    if (received !== undefined) child.signal(received);
    return await supervise(config, child, tokenFile, first, timers);
  } catch (err) {
    if (err instanceof AgentError) {
      config.log(`cannot get an access token: ${err.message}`);
      return err.exitCode;
    }
    if (err instanceof SpawnError) {
      config.log(err.message);
      return err.exitCode;
    }
    throw err;
  } finally {
    for (const signal of FORWARDED_SIGNALS) signals.off(signal, onSignal);
    // Normally the child has exited by now; after an unexpected error it must not outlive the wrapper.
    await child?.stop(config.gracePeriodMs, timers);
    await tokenFile?.remove();
    process.off('exit', onExit);
  }
}

function startChild(config: WrapperConfig, tokenFilePath: string, token: AccessToken): Promise<SupervisedChild> {
  const env: NodeJS.ProcessEnv = { ...config.env, [config.tokenFileEnv]: tokenFilePath };
  if (config.exportTokenEnv !== undefined) env[config.exportTokenEnv] = token.accessToken;
  return SupervisedChild.start(config.command, config.args, env);
}

/** Refreshes until the child exits; on expiry deletes the file and stops the child. */
async function supervise(
  config: WrapperConfig,
  child: SupervisedChild,
  tokenFile: TokenFile,
  first: AccessToken,
  timers: Timers,
): Promise<number> {
  let expiry: { lastError: unknown } | undefined;
  let stopping: Promise<ChildExit> | undefined;
  const scheduler = new RefreshScheduler(
    {
      fetchToken: config.fetchToken,
      install: (token) => tokenFile.write(token.accessToken),
      refreshMarginMs: config.refreshMarginMs,
      clock: config.clock ?? systemClock,
      timers,
      ...(config.retryBackoff && { backoff: config.retryBackoff }),
      onRetry: (err, delayMs) =>
        config.log(
          `token refresh failed (${describeFailure(err)}); retrying in ${(delayMs / 1000).toFixed(1)} s; ` +
            `the current token expires at ${scheduler.current.expiresAt.toISOString()}`,
        ),
      onExpired: (lastError) => {
        expiry = { lastError };
        config.log(
          `the access token expired at ${scheduler.current.expiresAt.toISOString()} without a successful refresh ` +
            `(last error: ${describeFailure(lastError)}); deleted ${tokenFile.path}, stopping ${config.command}`,
        );
        stopping = tokenFile
          .remove()
          .catch(() => undefined)
          .then(() => child.stop(config.gracePeriodMs, timers));
      },
    },
    first,
  );
  scheduler.start();
  const exit = await child.exited;
  scheduler.stop();
  await stopping;
  if (expiry === undefined) return exitCodeFor(exit);
  return expiry.lastError instanceof AgentError ? expiry.lastError.exitCode : AGENT_EXIT.failure;
}

function describeFailure(err: unknown): string {
  if (err === undefined) return 'none';
  return err instanceof AgentError ? err.message : describeThrown(err);
}

/** docs/security.md#residual-risks: a token in the environment is visible to whoever can read it, and never refreshed. */
function exportWarning(variable: string, token: AccessToken, fileVariable: string): string {
  return (
    `warning: --export-token-env ${variable} puts the access token in the child's environment, where other ` +
    `processes of this user can read it (for example /proc/<pid>/environ); it is never refreshed and stops ` +
    `working at ${token.expiresAt.toISOString()}. The token file named by ${fileVariable} is kept fresh.`
  );
}
