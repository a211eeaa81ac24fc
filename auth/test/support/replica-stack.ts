import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { spawnNode, waitFor } from '@notegate/kit/testing';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { readAuditFile } from './audit-file.js';
import { POLICY_YAML, RESOURCE_A, tokenForm } from './authz-fixtures.js';
import { MAIN, runNotegate } from './cli-process.js';
import { mcpHeaders, rpc } from './notes-server-fixture.js';
import type { RedisServer } from './redis-server.js';
import { startRedisServer } from './redis-server.js';
import { AUDIENCE, SUBJECT, signSvid, testKey } from './svid-fixtures.js';

/** One issuer for every replica: they stand behind one URL (docs/protocol.md#running-replicas). */
export const ISSUER = AUDIENCE;

/** A real process, with what it printed and the addresses it announced. */
export interface RunningProcess {
  readonly output: { stdout: string; stderr: string };
  /** Its public base URL (authz) or MCP endpoint (notes server), from its listening line. */
  readonly url: string;
  /** GET /metrics of its metrics listener. */
  readonly metricsUrl: string;
  readonly child: ReturnType<typeof spawnNode>['child'];
}

export interface Replica extends RunningProcess {
  readonly auditLog: string;
  /** Its audit lines so far, parsed. */
  audit(): Promise<Record<string, unknown>[]>;
  /** POST /token with `assertion` for RESOURCE_A and notes:read. */
  token(assertion: string): Promise<Response>;
}

export interface ReplicaStack {
  readonly policy: string;
  readonly redis: RedisServer;
  readonly replicas: readonly Replica[];
  /** A notes server for RESOURCE_A that fetches the key set of the last replica. */
  readonly notes: RunningProcess;
  /** A valid JWT-SVID for the policy's agent, with a jti never used before. */
  svid(): Promise<string>;
  /** tools/list on the notes server with `accessToken`. */
  callNotes(accessToken: string): Promise<Response>;
  /** `notegate authz keygen --out <keyFile> …`; throws unless it exits 0. */
  keygen(...args: string[]): Promise<string>;
}

/**
 * `count` real `notegate authz` processes behind one issuer, sharing one real redis-server and one
 * signing key file, each with its audit file and metrics listener; and a real `notegate notes-server`
 * whose --jwks-uri is the last replica's key set. Everything is stopped after the test.
 */
export async function startReplicaStack(
  t: TestContext,
  options: { readonly count?: number } = {},
): Promise<ReplicaStack> {
  const dir = await mkdtemp(join(tmpdir(), 'notegate-replicas-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const agentKey = testKey('P-256', 'agent-key');
  const bundle = join(dir, 'bundle.json');
  await writeFile(bundle, JSON.stringify({ keys: [agentKey.publicJwk] }));
  const policy = join(dir, 'policy.yaml');
  await writeFile(policy, POLICY_YAML, { mode: 0o644 });
  const keyFile = join(dir, 'signing-keys.json');
  const keygen = async (...args: string[]) => {
    const run = await runNotegate(['authz', 'keygen', '--out', keyFile, ...args]);
    if (run.code !== 0) throw new Error(`keygen ${args.join(' ')} exited ${run.code}: ${run.stderr}`);
    return run.stdout.trim();
  };
  await keygen();
  const redis = await startRedisServer(t);
  const replicas = await Promise.all(
    Array.from({ length: options.count ?? 2 }, async (_, index) => {
      const auditLog = join(dir, `authz-${index}.log`);
      const args = ['authz', '--issuer', ISSUER, '--port', '0', '--policy', policy, '--jwt-bundle', bundle];
      args.push('--replay-store', redis.url, '--signing-keys', keyFile, '--audit-log', auditLog, '--metrics-port', '0');
      const running = await startProcess(t, args);
      const replica: Replica = {
        ...running,
        auditLog,
        audit: () => readAuditFile(auditLog),
        token: (assertion) => fetch(new URL('/token', running.url), { method: 'POST', body: tokenForm(assertion) }),
      };
      // The store connects in the background: wait until it did, so that tests start from a working service.
      await waitFor('the replay store to connect', () => /replay store .*: connected/.test(running.output.stderr));
      return replica;
    }),
  );
  const last = replicas.at(-1);
  if (!last) throw new Error('a stack needs at least one replica');
  const notes = await startProcess(t, [
    'notes-server',
    '--name',
    'notes-a',
    '--resource',
    RESOURCE_A,
    '--port',
    '0',
    '--issuer',
    ISSUER,
    '--jwks-uri',
    new URL('/jwks.json', last.url).href,
    '--notes-dir',
    join(dir, 'notes'),
    '--audit-log',
    join(dir, 'notes-a.log'),
    '--metrics-port',
    '0',
  ]);
  return {
    policy,
    redis,
    replicas,
    notes,
    svid: () => {
      const nowS = Math.floor(Date.now() / 1000);
      return signSvid(agentKey, 'ES256', {
        sub: SUBJECT,
        aud: [ISSUER],
        iat: nowS,
        exp: nowS + 300,
        jti: randomUUID(),
      });
    },
    callNotes: (accessToken) =>
      fetch(notes.url, { method: 'POST', headers: mcpHeaders(accessToken), body: rpc('tools/list') }),
    keygen,
  };
}

/** Starts `notegate <args>` and waits for its listening line and its metrics line. */
async function startProcess(t: TestContext, args: readonly string[]): Promise<RunningProcess> {
  const { child, output } = spawnNode(t, [MAIN, ...args]);
  const url = await waitFor(
    `the listening line of ${args[0]}`,
    () => /^listening on (\S+)\n/.exec(output.stdout)?.[1],
    15_000,
  );
  const metricsUrl = await waitFor(
    `the metrics line of ${args[0]}`,
    () => /metrics on (\S+)\n/.exec(output.stderr)?.[1],
  );
  return { output, url, metricsUrl, child };
}

/** One scrape of `url`, parsed by a Prometheus text-format parser: metric family name → family. */
export async function scrape(url: string): Promise<Map<string, parsePrometheusTextFormat.MetricFamily>> {
  const response = await fetch(url);
  if (response.status !== 200) throw new Error(`GET ${url}: ${response.status}`);
  const families = parsePrometheusTextFormat(await response.text());
  return new Map(families.map((family) => [family.name, family]));
}

/** The value of the sample of `family` whose labels include `labels`, or 0 when there is none. */
export function sampleValue(
  families: Map<string, parsePrometheusTextFormat.MetricFamily>,
  family: string,
  labels: Record<string, string> = {},
): number {
  const samples = families.get(family)?.metrics ?? [];
  const match = samples.find((sample) =>
    Object.entries(labels).every(([name, value]) => sample.labels?.[name] === value),
  );
  return match?.value === undefined ? 0 : Number(match.value);
}
