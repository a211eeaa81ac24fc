import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { reservePort } from '@notegate/kit/http';
import { JWKS_PATH } from '../authz/metadata.js';
import { AuditTrail } from './audit-trail.js';
import type { ChildProcesses, RunningChild } from './child-processes.js';
import { ChildNotReadyError, listeningUrl, untilOutput } from './child-readiness.js';
import type { WorkloadName } from './demo-config.js';
import { policyYaml, workloadsYaml } from './demo-config.js';
import { type DemoVaults, prepareDemoVaults } from './demo-vaults.js';
import { SvidCount } from './svid-count.js';
import { UntrustedIssuer } from './untrusted-issuer.js';

/** Ours: how long a child may take to print its listening line (node start-up is ~0.3 s here). */
const START_TIMEOUT_MS = 15_000;
/** Ours: a reserved port taken by someone else before the child bound it: try again with new ones. */
const START_ATTEMPTS = 3;

/**
 * Replay mode of the demo's authz: `reject`, the default. The development identity provider
 * signs a fresh SVID with a new jti on every FetchJWTSVID, so one-time use holds here; the SPIRE
 * deployment (deploy/spire) needs allow-reuse-within-lifetime because the SPIRE agent caches SVIDs.
 */
export const DEMO_REPLAY_MODE = 'reject';

export interface NotesServerInfo {
  readonly name: string;
  readonly resource: string;
  readonly issuer: string;
  /** Its GET /metrics on loopback (docs/protocol.md#metrics). */
  readonly metricsUrl: string;
}

/** Everything running, with the addresses and files the scenarios and the hand-call lines need. */
export interface Deployment {
  readonly dir: string;
  readonly socketDir: string;
  readonly issuer: string;
  /** The vaults config of the notes servers and the model of its index. */
  readonly vaults: DemoVaults;
  readonly notesA: NotesServerInfo;
  readonly notesB: NotesServerInfo;
  /** Advertises the untrusted issuer. */
  readonly notesC: NotesServerInfo;
  /** authz's GET /metrics on loopback. */
  readonly authzMetricsUrl: string;
  readonly untrusted: UntrustedIssuer;
  readonly svids: SvidCount;
  readonly audit: AuditTrail;
  readonly auditDir: string;
  /** The agent's own audit file (issuer_trusted / issuer_refused), passed to every agent run. */
  readonly agentAuditLog: string;
  /** The long-running processes: the identity provider, authz and the notes servers. */
  readonly servers: readonly RunningChild[];
  /** `unix:///…/<name>.sock`: the Workload API as that workload. */
  workloadApi(name: WorkloadName): string;
}

/**
 * Starts the whole deployment as child processes on loopback, in `dir`: the development identity
 * provider (agent, reader and authz sockets), authz over the provider's Workload API, notes-a and
 * notes-b trusting authz, and notes-c trusting an issuer that the agent does not. `onClose` receives
 * what the caller must close besides the children.
 */
export async function startDeployment(
  children: ChildProcesses,
  dir: string,
  onClose: (close: () => Promise<void>) => void,
): Promise<Deployment> {
  const socketDir = join(dir, 'sockets');
  const auditDir = join(dir, 'audit');
  await mkdir(auditDir, { recursive: true });
  const workloadsFile = join(dir, 'workloads.yaml');
  await writeFile(workloadsFile, workloadsYaml(), { mode: 0o600 });

  const provider = children.start('identity-provider', [
    'identity-provider',
    '--workloads',
    workloadsFile,
    '--socket-dir',
    socketDir,
    '--log-svids',
  ]);
  const svids = new SvidCount(provider);
  const untrusted = await UntrustedIssuer.start();
  onClose(() => untrusted.close());
  await untilOutput(provider, 'its listening line', listeningUrl, START_TIMEOUT_MS);

  const vaults = await prepareDemoVaults(dir, ['notes-a', 'notes-b', 'notes-c']);
  const workloadApi = (name: WorkloadName) => `unix://${join(socketDir, `${name}.sock`)}`;
  const { children: started, ...servers } = await startServers(children, {
    dir,
    auditDir,
    workloadApi,
    untrusted,
    vaults,
  });
  const auditFiles = ['agent', 'authz', 'notes-a', 'notes-b', 'notes-c'].map((name) => join(auditDir, `${name}.log`));
  return {
    dir,
    socketDir,
    vaults,
    ...servers,
    untrusted,
    svids,
    audit: new AuditTrail(auditFiles),
    auditDir,
    agentAuditLog: join(auditDir, 'agent.log'),
    servers: [provider, ...started],
    workloadApi,
  };
}

interface ServerPlan {
  readonly dir: string;
  readonly auditDir: string;
  readonly workloadApi: (name: WorkloadName) => string;
  readonly untrusted: UntrustedIssuer;
  readonly vaults: DemoVaults;
}

/** authz and the three notes servers, on ports reserved together; all again on new ports if one was taken. */
async function startServers(children: ChildProcesses, plan: ServerPlan) {
  for (let attempt = 1; ; attempt += 1) {
    const started: RunningChild[] = [];
    try {
      return await startServersOnce(children, plan, started);
    } catch (err) {
      const portTaken = started.some((child) => /EADDRINUSE/.test(child.output.stderr));
      if (!(err instanceof ChildNotReadyError) || !portTaken || attempt >= START_ATTEMPTS) throw err;
      await children.stop(started);
    }
  }
}

async function startServersOnce(children: ChildProcesses, plan: ServerPlan, started: RunningChild[]) {
  const [authzPort, portA, portB, portC, ...metricsPorts] = await distinctPorts(8);
  const issuer = `http://127.0.0.1:${authzPort}`;
  const resourceOf = (port: number | undefined) => `http://127.0.0.1:${port}/mcp`;
  const metricsOf = (index: number) => `http://127.0.0.1:${metricsPorts[index]}/metrics`;
  const notesA = { name: 'notes-a', resource: resourceOf(portA), issuer, metricsUrl: metricsOf(1) };
  const notesB = { name: 'notes-b', resource: resourceOf(portB), issuer, metricsUrl: metricsOf(2) };
  const notesC = {
    name: 'notes-c',
    resource: resourceOf(portC),
    issuer: plan.untrusted.issuer,
    metricsUrl: metricsOf(3),
  };
  const authzMetricsUrl = metricsOf(0);
  const policyFile = join(plan.dir, 'policy.yaml');
  await writeFile(policyFile, policyYaml({ notesA: notesA.resource, notesB: notesB.resource }), { mode: 0o600 });

  const authz = children.start('authz', [
    'authz',
    '--issuer',
    issuer,
    '--policy',
    policyFile,
    '--workload-api',
    plan.workloadApi('authz'),
    '--svid-replay',
    DEMO_REPLAY_MODE,
    '--audit-log',
    join(plan.auditDir, 'authz.log'),
    '--metrics-port',
    new URL(authzMetricsUrl).port,
  ]);
  started.push(authz);
  const notes = [notesA, notesB, notesC].map((server) => {
    const child = children.start(server.name, notesServerArgs(server, plan));
    started.push(child);
    return expectListening(child, server.resource);
  });
  await Promise.all([
    expectListening(authz, issuer),
    // Until its first JWT bundle arrives, authz answers token requests with 503.
    untilOutput(
      authz,
      'its first JWT bundle',
      ({ stderr }) => /JWT bundle received/.test(stderr) || undefined,
      START_TIMEOUT_MS,
    ),
    ...notes,
  ]);
  return { issuer, notesA, notesB, notesC, authzMetricsUrl, children: [...started] };
}

function notesServerArgs(server: NotesServerInfo, plan: ServerPlan): string[] {
  return [
    'notes-server',
    '--name',
    server.name,
    '--resource',
    server.resource,
    '--issuer',
    server.issuer,
    '--jwks-uri',
    new URL(JWKS_PATH, server.issuer).href,
    // docs/demo.md: the handbook, and this server's own notes, which it writes.
    '--vaults-config',
    plan.vaults.configFile,
    '--vault',
    'handbook',
    '--vault',
    server.name,
    '--write-vault',
    server.name,
    '--audit-log',
    join(plan.auditDir, `${server.name}.log`),
    '--metrics-port',
    new URL(server.metricsUrl).port,
  ];
}

async function expectListening(child: RunningChild, expected: string): Promise<void> {
  const url = await untilOutput(child, 'its listening line', listeningUrl, START_TIMEOUT_MS);
  if (url !== expected) throw new Error(`${child.name} listens on ${url}, expected ${expected}`);
}

async function distinctPorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await reservePort());
  return [...ports];
}
