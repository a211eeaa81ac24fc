import type { CommandIo } from '@notegate/kit/cli';
import type { SpireLayout } from '../identity-provider/spire/layout.js';
import type { SpireBinaries } from '../identity-provider/spire/spire-binaries.js';
import { SPIRE_VERSION } from '../identity-provider/spire/spire-binaries.js';
import { SpireDeploymentError } from '../identity-provider/spire/spire-process.js';
import type { RunningChild } from '../shared/child-processes.js';
import { DemoInterrupted, runAgent } from './agent-runner.js';
import { ChildNotReadyError } from './child-readiness.js';
import type { Deployment } from './deployment.js';
import { startDeployment } from './deployment.js';
import { startDevelopmentIdentity } from './development-identity.js';
import { handCalls } from './hand-calls.js';
import type { DemoIdentity } from './identity.js';
import type { Layout, ScenarioResult } from './report.js';
import {
  banner,
  crashReport,
  deploymentBlock,
  passed,
  scenarioBody,
  scenarioHeader,
  seconds,
  summary,
} from './report.js';
import type { Scenario, ScenarioContext } from './scenario.js';
import { allowed } from './scenarios/allowed.js';
import { insufficientScope } from './scenarios/insufficient-scope.js';
import { stolenToken } from './scenarios/stolen-token.js';
import { untrustedIssuer } from './scenarios/untrusted-issuer.js';
import { DemoSession } from './session.js';
import { startSpireIdentity } from './spire-identity.js';

/** The four scenarios of docs/demo.md, in order (scenario 4 relies on the SVIDs the others minted). */
export const SCENARIOS: readonly Scenario[] = [allowed, insufficientScope, stolenToken, untrustedIssuer];

/** Where the workloads get their SVIDs (`--identity`), with what SPIRE needs when it is SPIRE. */
export type IdentityChoice =
  | { readonly name: 'development'; readonly spireFound: SpireBinaries | undefined }
  | {
      readonly name: 'spire';
      readonly binaries: SpireBinaries;
      readonly layout: SpireLayout;
      /** Why that layout, for the report. */
      readonly why: string;
    };

export interface DemoOptions {
  readonly keepRunning: boolean;
  readonly layout: Layout;
  readonly identity: IdentityChoice;
}

/** 128 + the signal number, as a shell reports a process ended by it. */
const SIGNAL_EXIT: Readonly<Record<string, number>> = { SIGINT: 130, SIGTERM: 143 };

/**
 * Starts the deployment, runs the scenarios, prints the report; with `keepRunning`, waits for
 * `signal` before stopping. Resolves with the exit code: 0 when every scenario behaved as expected,
 * 1 otherwise, 128 + n when interrupted by signal n. Everything started is stopped and removed on
 * every way out.
 */
export async function runDemo(options: DemoOptions, io: CommandIo, signal: AbortSignal): Promise<number> {
  const { layout } = options;
  const { style } = layout;
  const startedMs = Date.now();
  io.stdout(banner(layout));
  io.stdout(identityNote(options.identity, layout));
  const session = await DemoSession.open();
  // Unblocks whatever is waiting on a child: they all end, and the wait sees the signal.
  const stopChildren = () => void session.children.stopAll();
  signal.addEventListener('abort', stopChildren, { once: true });
  try {
    if (signal.aborted) throw new DemoInterrupted();
    const identity = await startIdentity(options.identity, session);
    if (signal.aborted) throw new DemoInterrupted();
    const deployment = await startDeployment(session.children, session.dir, identity, (close) =>
      session.onClose(close),
    );
    if (signal.aborted) throw new DemoInterrupted();
    io.stdout(deploymentBlock(deployment, Date.now() - startedMs, layout));
    const results: ScenarioResult[] = [];
    const reported = new Set<RunningChild>();
    for (const [index, scenario] of SCENARIOS.entries()) {
      io.stdout(scenarioHeader(index + 1, SCENARIOS.length, scenario.title, layout));
      const result = await runScenario(scenario, session, deployment, signal);
      results.push(result);
      io.stdout(scenarioBody(result, layout));
      const ended = deployment.servers.filter((server) => server.endedWith !== undefined && !reported.has(server));
      for (const server of ended) reported.add(server);
      io.stdout(crashReport(ended, layout));
    }
    io.stdout(summary(results, Date.now() - startedMs, layout));
    const code = results.every(passed) ? 0 : 1;
    if (!options.keepRunning) return code;
    io.stdout(handCalls(deployment, layout));
    await untilAborted(signal);
    return code;
  } catch (err) {
    if (signal.aborted) {
      io.stderr(`\nnotegate demo: interrupted (${String(signal.reason)}); stopping everything.\n`);
      return SIGNAL_EXIT[String(signal.reason)] ?? 1;
    }
    if (err instanceof ChildNotReadyError || err instanceof SpireDeploymentError) {
      io.stderr(`notegate demo: the deployment did not start: ${err.message}\n`);
      return 1;
    }
    throw err;
  } finally {
    signal.removeEventListener('abort', stopChildren);
    await session.close();
    io.stdout(
      `${style.dim(`Stopped every process and removed ${session.folders.join(' and ')} (${seconds(Date.now() - startedMs)}).`)}\n`,
    );
  }
}

async function runScenario(
  scenario: Scenario,
  session: DemoSession,
  deployment: Deployment,
  signal: AbortSignal,
): Promise<ScenarioResult> {
  const startedMs = Date.now();
  const mark = await deployment.audit.mark();
  const context: ScenarioContext = {
    deployment,
    agent: (caller, resource, args = []) => runAgent(session.children, deployment, signal, { caller, resource, args }),
    auditSoFar: () => deployment.audit.since(mark),
  };
  const outcome = await scenario.run(context);
  const audit = await deployment.audit.since(mark);
  return { scenario, outcome, audit, durationMs: Date.now() - startedMs };
}

function untilAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

function startIdentity(choice: IdentityChoice, session: DemoSession): Promise<DemoIdentity> {
  if (choice.name === 'development') return startDevelopmentIdentity(session.children, session.dir);
  return session
    .workloadFolder()
    .then((folder) => startSpireIdentity(session.children, folder, choice.binaries, choice.layout));
}

/** The first lines under the banner: which identity source runs, and how to run the other. */
export function identityNote(choice: IdentityChoice, { style }: Layout): string {
  const spire = `SPIRE ${SPIRE_VERSION}`;
  if (choice.name === 'spire') {
    return style.dim(`On ${spire} (${choice.binaries.dir}), ${choice.layout} layout: ${choice.why}.\n\n`);
  }
  const how = choice.spireFound
    ? `${spire} is built (${choice.spireFound.dir}): \`npm run demo -- --identity spire\` runs these scenarios on it.`
    : `To run these scenarios on ${spire}: \`npm run spire:build\` (needs Go), then \`npm run demo -- --identity spire\`.`;
  return style.dim(`On the development identity provider. ${how}\n\n`);
}
