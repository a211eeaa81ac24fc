import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { closeServer, listen, reservePort } from '@notegate/kit/http';
import { AuditLog } from '../../src/audit/audit-log.js';
import type { RunningAuthz } from '../../src/authz/authz-server.js';
import { startAuthz } from '../../src/authz/authz-server.js';
import type { ReplayMode } from '../../src/authz/check-replay.js';
import type { DevelopmentIdentityProvider } from '../../src/identity-provider/identity-provider.js';
import { createNotesServer } from '../../src/mcp-server/notes-server.js';
import { parsePolicy } from '../../src/policy/policy-file.js';
import { fixedPolicy } from '../../src/policy/policy-source.js';
import type { WorkloadApiBundleSource } from '../../src/spiffe/bundles/workload-api-bundle-source.js';
import type { WorkloadApiClient } from '../../src/spiffe/workload-api/client.js';
import type { Registrar } from './cleanups.js';
import { CountingProxy } from './counting-proxy.js';
import { fastClient, startProvider, streamedBundles } from './provider-fixtures.js';
import { openFolderEngine } from './test-engine.js';

export interface StackNotesServer {
  readonly name: string;
  readonly resource: string;
  readonly notesDir: string;
  readonly auditLines: string[];
}

/** The stack around the development identity provider (real unix sockets). */
export interface AgentStack extends IdentityStack {
  readonly provider: DevelopmentIdentityProvider;
}

/**
 * The whole deployment on loopback, as the demo runs it, around an identity source (the development
 * identity provider or SPIRE): notegate authz reading JWT bundles from its Workload API, and notes
 * servers (notes-a: notes:read + notes:write for the agent; notes-b: notes:read; notes-c: notes:read,
 * but it cannot fetch its key set). The issuer URL is a counting proxy in front of authz, so tests
 * can prove the agent never reached it.
 */
export interface IdentityStack {
  /** `unix:///…`: the agent's Workload API. */
  readonly workloadApi: string;
  /** The issuer (the counting proxy in front of authz). */
  readonly issuer: string;
  readonly issuerProxy: CountingProxy;
  readonly authz: RunningAuthz;
  /** authz's JWT bundles, streamed from the identity source's Workload API. */
  readonly bundles: WorkloadApiBundleSource;
  readonly authzAudit: string[];
  readonly notesA: StackNotesServer;
  readonly notesB: StackNotesServer;
  /** Misconfigured: its key set URL answers 404, so every token is refused with 401 invalid_token. */
  readonly notesC: StackNotesServer;
  /**
   * A resource the policy grants the agent (notes:read, notes:write) where nothing listens: tests put
   * their own server there (`startSpare`, or a scripted one).
   */
  readonly spare: { readonly resource: string; readonly port: number };
  /** The stack's private temporary directory. */
  readonly dir: string;
  /** A Workload API client as the agent workload, closed with the registrar. */
  agentSvidSource(registrar: Registrar): WorkloadApiClient;
  /**
   * `--resource`, `--trusted-issuer` and `--workload-api` of a token-fetching command (agent, token,
   * proxy, mcp-svid-stdio) as the agent workload of this stack; `overrides` replace the issuer or socket.
   */
  targetArgs(
    resource: string,
    overrides?: { readonly trustedIssuer?: string; readonly workloadApi?: string },
  ): string[];
  /** A notes server of the stack's issuer at the spare resource, its notes in `<dir>/<name>`. */
  startSpare(registrar: Registrar, name: string): Promise<StackNotesServer & { stop(): Promise<void> }>;
}

export interface AgentStackOptions {
  /** The lifetime of the access tokens authz mints (default: the fixed 300 s). */
  readonly accessTokenLifetimeS?: number;
  /** The identity provider's clock: one in the past makes it mint SVIDs that are already expired. */
  readonly providerClock?: () => number;
  readonly spareSpelling?: IdentityStackOptions['spareSpelling'];
}

export async function startAgentStack(registrar: Registrar, options: AgentStackOptions = {}): Promise<AgentStack> {
  const dir = await mkdtemp(join(tmpdir(), 'notegate-agent-stack-'));
  registrar.after(() => rm(dir, { recursive: true, force: true }));
  const provider = await startProvider(registrar, {
    socketDir: join(dir, 'sockets'),
    ...(options.providerClock && { clock: options.providerClock }),
  });
  const identity = { authzSocket: provider.socketPath('authz'), agentSocket: provider.socketPath('agent') };
  const stack = await startIdentityStack(registrar, dir, identity, {
    replayMode: 'reject',
    ...(options.accessTokenLifetimeS !== undefined && { accessTokenLifetimeS: options.accessTokenLifetimeS }),
    ...(options.spareSpelling && { spareSpelling: options.spareSpelling }),
  });
  return { ...stack, provider };
}

/** The Workload API sockets of the two workloads the stack needs. */
export interface StackIdentity {
  /** authz's: the JWT bundles stream. */
  readonly authzSocket: string;
  /** The agent's: its SVIDs. */
  readonly agentSocket: string;
}

export interface IdentityStackOptions {
  readonly replayMode: ReplayMode;
  readonly accessTokenLifetimeS?: number;
  /** How the spare resource is spelled, in the policy and to `startSpare` (default `http://127.0.0.1:<port>/mcp`). */
  readonly spareSpelling?: (port: number) => string;
}

/** The stack in `dir` (removed by the caller) around the identity source behind `identity`'s sockets. */
export async function startIdentityStack(
  registrar: Registrar,
  dir: string,
  identity: StackIdentity,
  options: IdentityStackOptions,
): Promise<IdentityStack> {
  const bundles = streamedBundles(registrar, fastClient(registrar, identity.authzSocket));
  await bundles.ready(5_000);

  const [portA, portB, portC, portD] = [
    await reservePort(),
    await reservePort(),
    await reservePort(),
    await reservePort(),
  ];
  const resourceOf = (port: number) => `http://127.0.0.1:${port}/mcp`;
  const [resourceA, resourceB, resourceC] = [resourceOf(portA), resourceOf(portB), resourceOf(portC)];
  const spare = { resource: (options.spareSpelling ?? resourceOf)(portD), port: portD };
  let authzUrl = new URL('http://127.0.0.1:1');
  const issuerProxy = await CountingProxy.start(() => authzUrl);
  registrar.after(() => issuerProxy.close());
  const issuer = issuerProxy.url.origin;
  const authzAudit: string[] = [];
  const authz = await startAuthz({
    issuer,
    policy: fixedPolicy(parsePolicy(policyYaml(resourceA, resourceB, resourceC, spare.resource), 'agent stack policy')),
    bundles,
    replayMode: options.replayMode,
    maxSvidLifetimeS: 300,
    host: '127.0.0.1',
    port: 0,
    audit: new AuditLog((line) => authzAudit.push(line)),
    ...(options.accessTokenLifetimeS !== undefined && { accessTokenLifetimeS: options.accessTokenLifetimeS }),
  });
  registrar.after(() => authz.close());
  authzUrl = authz.url;
  const jwksUri = new URL('/jwks.json', authz.url).href;
  const notesA = await startNotes(registrar, 'notes-a', resourceA, portA, issuer, jwksUri, dir);
  const notesB = await startNotes(registrar, 'notes-b', resourceB, portB, issuer, jwksUri, dir);
  const missingKeys = new URL('/no-such-key-set.json', authz.url).href;
  const notesC = await startNotes(registrar, 'notes-c', resourceC, portC, issuer, missingKeys, dir);
  const workloadApi = `unix://${identity.agentSocket}`;
  return {
    bundles,
    workloadApi,
    issuer,
    issuerProxy,
    authz,
    authzAudit,
    notesA,
    notesB,
    notesC,
    spare,
    dir,
    agentSvidSource: (r) => fastClient(r, identity.agentSocket),
    targetArgs: (resource, overrides = {}) => [
      '--resource',
      resource,
      '--trusted-issuer',
      overrides.trustedIssuer ?? issuer,
      '--workload-api',
      overrides.workloadApi ?? workloadApi,
    ],
    startSpare: (r, name) => startNotes(r, name, spare.resource, spare.port, issuer, jwksUri, dir),
  };
}

function policyYaml(resourceA: string, resourceB: string, resourceC: string, resourceD: string): string {
  return `trust_domain: example.org
grants:
  - spiffe_id: spiffe://example.org/agent
    resources:
      - resource: ${resourceA}
        scopes: [notes:read, notes:write]
      - resource: ${resourceB}
        scopes: [notes:read]
      - resource: ${resourceC}
        scopes: [notes:read]
      - resource: ${resourceD}
        scopes: [notes:read, notes:write]
`;
}

/** A notes server of the stack's issuer on `port`, its audit lines kept; `stop()` closes it early (it may be started again). */
async function startNotes(
  registrar: Registrar,
  name: string,
  resource: string,
  port: number,
  issuer: string,
  jwksUri: string,
  dir: string,
): Promise<StackNotesServer & { stop(): Promise<void> }> {
  const auditLines: string[] = [];
  const notesDir = join(dir, name);
  const notes = await createNotesServer({
    name,
    resource,
    issuer,
    jwksUri,
    engine: await openFolderEngine(notesDir),
    audit: new AuditLog((line) => auditLines.push(line)),
  });
  await listen(notes.server, '127.0.0.1', port);
  let stopped: Promise<void> | undefined;
  const stop = () => {
    stopped ??= notes.close().then(() => closeServer(notes.server));
    return stopped;
  };
  registrar.after(stop);
  return { name, resource, notesDir, auditLines, stop };
}
