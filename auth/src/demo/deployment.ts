import { chmod, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { reservePort } from '@notegate/kit/http';
import { JWKS_PATH } from '../authz/metadata.js';
import type { ChildProcesses, RunningChild } from '../shared/child-processes.js';
import { AuditTrail } from './audit-trail.js';
import { ChildNotReadyError, listeningUrl, START_TIMEOUT_MS, untilOutput } from './child-readiness.js';
import type { WorkloadName } from './demo-config.js';
import { policyYaml } from './demo-config.js';
import { type DemoVaults, prepareDemoVaults } from './demo-vaults.js';
import type { DemoIdentity, SvidCounter } from './identity.js';
import { startNotegate } from './notegate-child.js';
import { UntrustedIssuer } from './untrusted-issuer.js';

/** Ours: a reserved port taken by someone else before the child bound it: try again with new ones. */
const START_ATTEMPTS = 3;
/** The callers `notegate agent` runs as; each writes its own audit file (`<name>.log`). */
const CALLERS: readonly WorkloadName[] = ['agent', 'reader'];

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
  readonly issuer: string;
  /** Where the workloads get their SVIDs, and how they are started. */
  readonly identity: DemoIdentity;
  /** The vaults config of the notes servers and the model of its index. */
  readonly vaults: DemoVaults;
  readonly notesA: NotesServerInfo;
  readonly notesB: NotesServerInfo;
  /** Advertises the untrusted issuer. */
  readonly notesC: NotesServerInfo;
  /** authz's GET /metrics on loopback. */
  readonly authzMetricsUrl: string;
  readonly untrusted: UntrustedIssuer;
  readonly svids: SvidCounter;
  readonly audit: AuditTrail;
  readonly auditDir: string;
  /** The long-running processes: the identity source's, authz and the notes servers. */
  readonly servers: readonly RunningChild[];
  /** `unix:///…`: the Workload API as that workload. */
  workloadApi(name: WorkloadName): string;
  /** The audit file of `notegate agent` run as `caller` (issuer_trusted / issuer_refused). */
  agentAuditLog(caller: WorkloadName): string;
}

/**
 * Starts the rest of the deployment around `identity`, as child processes on loopback, in `dir`:
 * authz reading JWT bundles from the identity source's Workload API, notes-a and notes-b trusting
 * authz, and notes-c trusting an issuer that the agent does not. `onClose` receives what the
 * caller must close besides the children.
 */
export async function startDeployment(
  children: ChildProcesses,
  dir: string,
  identity: DemoIdentity,
  onClose: (close: () => Promise<void>) => void,
): Promise<Deployment> {
  const untrusted = await UntrustedIssuer.start();
  onClose(() => untrusted.close());
  const auditDir = join(identity.workloadDir, 'audit');
  await mkdir(auditDir, { recursive: true, mode: 0o700 });
  // Workloads of other users open their own files here; they may enter, not list.
  if (identity.workloadDir !== dir) await chmod(auditDir, 0o711);
  const agentAuditLog = (caller: WorkloadName) => join(auditDir, `${caller}.log`);
  for (const caller of CALLERS) await identity.prepareFile(agentAuditLog(caller), caller);

  const vaults = await prepareDemoVaults(dir, ['notes-a', 'notes-b', 'notes-c']);
  const { children: started, ...servers } = await startServers(children, {
    dir,
    auditDir,
    identity,
    untrusted,
    vaults,
  });
  const auditFiles = [...CALLERS, 'authz', 'notes-a', 'notes-b', 'notes-c'].map((name) =>
    join(auditDir, `${name}.log`),
  );
  return {
    dir,
    identity,
    vaults,
    ...servers,
    untrusted,
    svids: identity.svids,
    audit: new AuditTrail(auditFiles),
    auditDir,
    servers: [...identity.daemons, ...started],
    workloadApi: (name) => identity.workloadApi(name),
    agentAuditLog,
  };
}

interface ServerPlan {
  readonly dir: string;
  readonly auditDir: string;
  readonly identity: DemoIdentity;
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
  const { identity } = plan;
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
  // authz opens its policy (for these ports) and its audit file itself, perhaps as a user of its own.
  const policyFile = join(identity.workloadDir, 'policy.yaml');
  const authzAudit = join(plan.auditDir, 'authz.log');
  await identity.prepareFile(policyFile, 'authz', policyYaml({ notesA: notesA.resource, notesB: notesB.resource }));
  await identity.prepareFile(authzAudit, 'authz');

  const authz = startNotegate(
    children,
    'authz',
    [
      'authz',
      '--issuer',
      issuer,
      '--policy',
      policyFile,
      '--workload-api',
      identity.workloadApi('authz'),
      '--svid-replay',
      identity.replayMode,
      '--audit-log',
      authzAudit,
      '--metrics-port',
      new URL(authzMetricsUrl).port,
    ],
    identity.runAs('authz'),
  );
  started.push(authz);
  const notes = [notesA, notesB, notesC].map((server) => {
    const child = startNotegate(children, server.name, notesServerArgs(server, plan));
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
