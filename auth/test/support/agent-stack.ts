import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { closeServer, listen } from '@notegate/kit/http';
import { AuditLog } from '../../src/audit/audit-log.js';
import type { RunningAuthz } from '../../src/authz/authz-server.js';
import { startAuthz } from '../../src/authz/authz-server.js';
import type { DevelopmentIdentityProvider } from '../../src/identity-provider/identity-provider.js';
import { createNotesServer } from '../../src/mcp-server/notes-server.js';
import { parsePolicy } from '../../src/policy/policy-file.js';
import { fixedPolicy } from '../../src/policy/policy-source.js';
import type { WorkloadApiClient } from '../../src/spiffe/workload-api/client.js';
import type { Registrar } from './cleanups.js';
import { CountingProxy } from './counting-proxy.js';
import { freePort } from './notes-server-fixture.js';
import { fastClient, startProvider, streamedBundles } from './provider-fixtures.js';

export interface StackNotesServer {
  readonly name: string;
  readonly resource: string;
  readonly notesDir: string;
  readonly auditLines: string[];
}

/**
 * The whole deployment on loopback, as the demo runs it: the development identity provider (real unix
 * sockets), notegate authz reading JWT bundles from its Workload API, and notes servers (notes-a:
 * notes:read + notes:write for the agent; notes-b: notes:read; notes-c: notes:read, but it cannot fetch
 * its key set). The issuer URL is a counting proxy in
 * front of authz, so tests can prove the agent never reached it.
 */
export interface AgentStack {
  readonly provider: DevelopmentIdentityProvider;
  /** `unix:///…/agent.sock`: the agent's Workload API. */
  readonly workloadApi: string;
  /** The issuer (the counting proxy in front of authz). */
  readonly issuer: string;
  readonly issuerProxy: CountingProxy;
  readonly authz: RunningAuthz;
  readonly authzAudit: string[];
  readonly notesA: StackNotesServer;
  readonly notesB: StackNotesServer;
  /** Misconfigured: its key set URL answers 404, so every token is refused with 401 invalid_token. */
  readonly notesC: StackNotesServer;
  /** A Workload API client as the agent workload, closed with the registrar. */
  agentSvidSource(registrar: Registrar): WorkloadApiClient;
}

export async function startAgentStack(registrar: Registrar): Promise<AgentStack> {
  const dir = await mkdtemp(join(tmpdir(), 'notegate-agent-stack-'));
  registrar.after(() => rm(dir, { recursive: true, force: true }));
  const provider = await startProvider(registrar, { socketDir: join(dir, 'sockets') });
  const bundles = streamedBundles(registrar, fastClient(registrar, provider.socketPath('authz')));
  await bundles.ready(5_000);

  const [portA, portB, portC] = [await freePort(), await freePort(), await freePort()];
  const resourceOf = (port: number) => `http://127.0.0.1:${port}/mcp`;
  const [resourceA, resourceB, resourceC] = [resourceOf(portA), resourceOf(portB), resourceOf(portC)];
  let authzUrl = new URL('http://127.0.0.1:1');
  const issuerProxy = await CountingProxy.start(() => authzUrl);
  registrar.after(() => issuerProxy.close());
  const issuer = issuerProxy.url.origin;
  const authzAudit: string[] = [];
  const authz = await startAuthz({
    issuer,
    policy: fixedPolicy(parsePolicy(policyYaml(resourceA, resourceB, resourceC), 'agent stack policy')),
    bundles,
    replayMode: 'reject',
    maxSvidLifetimeS: 300,
    host: '127.0.0.1',
    port: 0,
    audit: new AuditLog((line) => authzAudit.push(line)),
  });
  registrar.after(() => authz.close());
  authzUrl = authz.url;
  const jwksUri = new URL('/jwks.json', authz.url).href;
  const notesA = await startNotes(registrar, 'notes-a', resourceA, portA, issuer, jwksUri, dir);
  const notesB = await startNotes(registrar, 'notes-b', resourceB, portB, issuer, jwksUri, dir);
  const missingKeys = new URL('/no-such-key-set.json', authz.url).href;
  const notesC = await startNotes(registrar, 'notes-c', resourceC, portC, issuer, missingKeys, dir);
  return {
    provider,
    workloadApi: `unix://${provider.socketPath('agent')}`,
    issuer,
    issuerProxy,
    authz,
    authzAudit,
    notesA,
    notesB,
    notesC,
    agentSvidSource: (r) => fastClient(r, provider.socketPath('agent')),
  };
}

function policyYaml(resourceA: string, resourceB: string, resourceC: string): string {
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
`;
}

async function startNotes(
  registrar: Registrar,
  name: string,
  resource: string,
  port: number,
  issuer: string,
  jwksUri: string,
  dir: string,
): Promise<StackNotesServer> {
  const auditLines: string[] = [];
  const notesDir = join(dir, name);
  const notes = await createNotesServer({
    name,
    resource: new URL(resource),
    issuer,
    jwksUri,
    notesDir,
    audit: new AuditLog((line) => auditLines.push(line)),
  });
  await listen(notes.server, '127.0.0.1', port);
  registrar.after(async () => {
    await notes.close();
    await closeServer(notes.server);
  });
  return { name, resource, notesDir, auditLines };
}
