import type { ChildProcesses } from '../shared/child-processes.js';
import type { WorkloadName } from './demo-config.js';
import type { Deployment } from './deployment.js';
import { startNotegate } from './notegate-child.js';
import type { AgentRun } from './scenario.js';

/** Ours: far above one run (~0.3 s here); a hung agent is stopped and its scenario fails. */
const AGENT_RUN_LIMIT_MS = 60_000;
/** Each HTTP request of the agent, in seconds (its --timeout). */
const AGENT_REQUEST_TIMEOUT_S = '10';

/** The demo was interrupted (SIGINT/SIGTERM) while it waited for something. */
export class DemoInterrupted extends Error {
  constructor() {
    super('interrupted');
    this.name = 'DemoInterrupted';
  }
}

/** `notegate agent` as a child process, as `caller`, trusting the deployment's authz only. */
export async function runAgent(
  children: ChildProcesses,
  deployment: Deployment,
  signal: AbortSignal,
  request: { caller: WorkloadName; resource: string; args: readonly string[] },
): Promise<AgentRun> {
  if (signal.aborted) throw new DemoInterrupted();
  const args = [
    'agent',
    '--resource',
    request.resource,
    '--trusted-issuer',
    deployment.issuer,
    '--workload-api',
    deployment.workloadApi(request.caller),
    ...request.args,
    '--timeout',
    AGENT_REQUEST_TIMEOUT_S,
    '--audit-log',
    deployment.agentAuditLog(request.caller),
  ];
  const startedMs = Date.now();
  const child = startNotegate(children, `agent as ${request.caller}`, args, deployment.identity.runAs(request.caller));
  const limit = setTimeout(() => void children.stop([child], 0), AGENT_RUN_LIMIT_MS);
  const code = await child.exited;
  clearTimeout(limit);
  if (signal.aborted) throw new DemoInterrupted();
  return {
    args,
    code,
    stdout: child.output.stdout,
    stderr: child.output.stderr,
    durationMs: Date.now() - startedMs,
  };
}
