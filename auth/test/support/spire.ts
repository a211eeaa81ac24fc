import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isRecord } from '@notegate/kit';
import { spawnInGroup } from '@notegate/kit/testing';
import { decodeProtectedHeader } from 'jose';
import { AuditLog } from '../../src/audit/audit-log.js';
import { startAuthz } from '../../src/authz/authz-server.js';
import type { ReplayMode } from '../../src/authz/check-replay.js';
import type { SpireBinaries } from '../../src/identity-provider/spire/spire-binaries.js';
import {
  DEFAULT_SPIRE_BIN_DIR,
  findSpireBinaries,
  SPIRE_VERSION,
} from '../../src/identity-provider/spire/spire-binaries.js';
import type { SpireDeploymentOptions } from '../../src/identity-provider/spire/spire-deployment.js';
import { SpireDeployment } from '../../src/identity-provider/spire/spire-deployment.js';
import { parsePolicy } from '../../src/policy/policy-file.js';
import { fixedPolicy } from '../../src/policy/policy-source.js';
import { ChildProcesses } from '../../src/shared/child-processes.js';
import type { JwtBundleSource } from '../../src/spiffe/bundles/jwt-bundle-source.js';
import type { WorkloadApiClient } from '../../src/spiffe/workload-api/client.js';
import type { IdentityStack, IdentityStackOptions } from './agent-stack.js';
import { startIdentityStack } from './agent-stack.js';
import type { Registrar } from './cleanups.js';
import { fastClient } from './provider-fixtures.js';

/** Set by .ci/run: there, a SPIRE test without the binaries fails instead of being skipped. */
const REQUIRE_SPIRE_ENV = 'NOTEGATE_REQUIRE_SPIRE';

export interface SpireForTests {
  /** The `skip` option of a describe: a reason when the binaries are missing and not required, else false. */
  readonly skip: string | false;
  /** The binaries, when they are there. */
  readonly found: SpireBinaries | undefined;
  /** The binaries; throws (in CI) when they are missing. */
  binaries(): SpireBinaries;
}

/**
 * SPIRE 1.15.3 from NOTEGATE_SPIRE_BIN or .spire/bin (`npm run spire:build`). Without it, the SPIRE
 * tests are skipped with one line saying so, or fail when NOTEGATE_REQUIRE_SPIRE=1.
 */
export async function spireForTests(): Promise<SpireForTests> {
  const dir = process.env.NOTEGATE_SPIRE_BIN || DEFAULT_SPIRE_BIN_DIR;
  const lookup = await findSpireBinaries(dir);
  if (lookup.found) return { skip: false, found: lookup.binaries, binaries: () => lookup.binaries };
  const missing = `no SPIRE ${SPIRE_VERSION}: ${lookup.reason} (npm run spire:build builds it)`;
  const required = process.env[REQUIRE_SPIRE_ENV] === '1';
  return {
    skip: required ? false : missing,
    found: undefined,
    binaries: () => {
      throw new Error(`${missing}; ${REQUIRE_SPIRE_ENV}=1 requires the SPIRE tests to run`);
    },
  };
}

/** The test workloads: the agent, the reader, and authz (which reads the bundles). */
export const SPIRE_WORKLOADS = [
  { name: 'agent', spiffeId: 'spiffe://example.org/agent' },
  { name: 'reader', spiffeId: 'spiffe://example.org/reader' },
  { name: 'authz', spiffeId: 'spiffe://example.org/authz' },
] as const;

/**
 * A local SPIRE deployment for one test or suite, in a short temporary folder removed afterwards.
 * Every process it starts leads a group that the test's cleanups (and the test process's exit) kill.
 * Default layout: an agent per workload, so the test process itself (whatever its uid) can be any
 * workload by picking that workload's socket.
 */
export async function startSpire(
  registrar: Registrar,
  spire: SpireForTests,
  options: Partial<Omit<SpireDeploymentOptions, 'binaries' | 'children' | 'dir'>> = {},
): Promise<SpireDeployment> {
  const children = new ChildProcesses((command, args, spawnOptions) =>
    spawnInGroup(undefined, command, args, spawnOptions),
  );
  const dir = mkdtempSync(join(tmpdir(), 'ngsp-'));
  registrar.after(() => rmSync(dir, { recursive: true, force: true }));
  registrar.after(() => children.stopAll());
  const deployment = await SpireDeployment.start({
    binaries: spire.binaries(),
    children,
    dir,
    trustDomain: 'example.org',
    workloads: SPIRE_WORKLOADS,
    layout: 'agent-per-workload',
    ...options,
  });
  registrar.after(() => deployment.close());
  return deployment;
}

/** The socket path of `name`'s Workload API. */
export function socketOf(deployment: SpireDeployment, name: string): string {
  return deployment.workload(name).workloadApi.replace(/^unix:\/\//, '');
}

/** A Workload API client as `name` of the per-agent layout (this process connects to that workload's agent). */
export function spireClient(registrar: Registrar, deployment: SpireDeployment, name: string): WorkloadApiClient {
  return fastClient(registrar, socketOf(deployment, name));
}

/** The agent stack (in-process authz and notes servers) with SPIRE as its identity source. */
export async function startSpireStack(
  registrar: Registrar,
  deployment: SpireDeployment,
  options: IdentityStackOptions,
): Promise<IdentityStack> {
  const dir = mkdtempSync(join(tmpdir(), 'notegate-spire-stack-'));
  registrar.after(() => rmSync(dir, { recursive: true, force: true }));
  const identity = { authzSocket: socketOf(deployment, 'authz'), agentSocket: socketOf(deployment, 'agent') };
  return startIdentityStack(registrar, dir, identity, options);
}

/** The kid of a JWT-SVID: SPIRE's JWT authority ID. */
export function kidOf(svid: string): string {
  return String(decodeProtectedHeader(svid).kid);
}

/** A token service in this process whose JWT bundles come from `bundles` (SPIRE's stream), its audit lines kept. */
export interface SpireAuthz {
  readonly issuer: string;
  readonly audit: string[];
  /** POST /token for notes-a (notes:read) with `svid` as the client assertion. */
  token(svid: string): Promise<Response>;
  /** The audit line of the last decision, parsed. */
  lastAudit(): Record<string, unknown>;
}

export const SPIRE_AUTHZ_ISSUER = 'http://authz.spire.test';
const NOTES_A = 'http://notes-a.spire.test/mcp';

export async function startSpireAuthz(
  registrar: Registrar,
  bundles: JwtBundleSource,
  replayMode: ReplayMode,
): Promise<SpireAuthz> {
  const audit: string[] = [];
  const grant = (spiffeId: string) => ({
    spiffe_id: spiffeId,
    resources: [{ resource: NOTES_A, scopes: ['notes:read'] }],
  });
  const policy = JSON.stringify({
    trust_domain: 'example.org',
    grants: [grant('spiffe://example.org/agent'), grant('spiffe://example.org/reader')],
  });
  const authz = await startAuthz({
    issuer: SPIRE_AUTHZ_ISSUER,
    policy: fixedPolicy(parsePolicy(policy, 'SPIRE test policy')),
    bundles,
    replayMode,
    maxSvidLifetimeS: 300,
    host: '127.0.0.1',
    port: 0,
    audit: new AuditLog((line) => audit.push(line)),
  });
  registrar.after(() => authz.close());
  return {
    issuer: SPIRE_AUTHZ_ISSUER,
    audit,
    token: (svid) =>
      fetch(new URL('/token', authz.url), {
        method: 'POST',
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-spiffe',
          client_assertion: svid,
          resource: NOTES_A,
          scope: 'notes:read',
        }),
      }),
    lastAudit: () => JSON.parse(audit.at(-1) ?? '{}'),
  };
}

/** `spire-server localauthority jwt <verb> [-authorityID <id>]`; the authority ID SPIRE answers with. */
export async function jwtAuthority(deployment: SpireDeployment, verb: string, authorityId?: string): Promise<string> {
  const args = [
    'localauthority',
    'jwt',
    verb,
    ...(authorityId ? ['-authorityID', authorityId] : []),
    '-output',
    'json',
  ];
  const answer: unknown = JSON.parse(await deployment.serverCommand(args));
  const authority = isRecord(answer) ? Object.values(answer).find(isRecord) : undefined;
  if (typeof authority?.authority_id !== 'string') throw new Error(`no authority in ${JSON.stringify(answer)}`);
  return authority.authority_id;
}

/** The `error` member of an OAuth error response. */
export async function oauthError(res: Response): Promise<unknown> {
  const body: unknown = await res.json();
  return isRecord(body) ? body.error : undefined;
}
