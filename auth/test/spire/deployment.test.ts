import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runInGroup, spawnInGroup, waitFor } from '@notegate/kit/testing';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { decideSpireLayout } from '../../src/identity-provider/spire/layout.js';
import type { SpireDeployment } from '../../src/identity-provider/spire/spire-deployment.js';
import { verifyJwtSvid } from '../../src/spiffe/svid/verify-jwt-svid.js';
import type { WorkloadApiClient } from '../../src/spiffe/workload-api/client.js';
import { Cleanups } from '../support/cleanups.js';
import { alive } from '../support/process-checks.js';
import { fastClient, streamedBundles } from '../support/provider-fixtures.js';
import { kidOf, SPIRE_WORKLOADS, socketOf, spireClient, spireForTests, startSpire } from '../support/spire.js';

const spire = await spireForTests();
const AUDIENCE = 'http://127.0.0.1:8080';

/** The JWKS bytes of the first FetchJWTBundles message, parsed as JSON. */
function firstBundles(client: WorkloadApiClient): Promise<Map<string, unknown>> {
  return new Promise((resolve, reject) => {
    const stream = client.watchJwtBundles({
      onBundles: (bundles) => {
        stream.cancel();
        resolve(new Map([...bundles].map(([key, bytes]) => [key, JSON.parse(Buffer.from(bytes).toString('utf8'))])));
      },
      onEnd: reject,
    });
  });
}

/** Prints the SPIFFE ID a fresh process gets from `socket` as whatever user it runs as (or the gRPC status name). */
const WHO_AM_I = `
const { WorkloadApiClient } = await import(process.argv[1]);
const { parseWorkloadApiAddress } = await import(process.argv[2]);
const client = new WorkloadApiClient({
  address: parseWorkloadApiAddress(process.argv[3], 'test'),
  retry: { initialMs: 10, maxMs: 10, maxAttempts: 1 },
});
try {
  console.log((await client.fetchJwtSvid({ audience: 'http://127.0.0.1:8080' })).spiffeId);
} catch (err) {
  console.log(err.statusName);
} finally {
  client.close();
}
`;
const CLIENT_MODULE = fileURLToPath(new URL('../../src/spiffe/workload-api/client.js', import.meta.url));
const ADDRESS_MODULE = fileURLToPath(new URL('../../src/spiffe/workload-api/address.js', import.meta.url));
const uidLayout = await decideSpireLayout('uid', [
  { path: process.execPath, need: 'execute' },
  { path: CLIENT_MODULE, need: 'read' },
  { path: ADDRESS_MODULE, need: 'read' },
  { path: spire.found?.agent ?? '/', need: 'execute' },
  { path: '/tmp', need: 'search' },
]);

describe('SPIRE: a local 1.15.3 deployment (real server and agents)', { skip: spire.skip }, () => {
  describe('an agent per workload', () => {
    const cleanups = new Cleanups();
    let deployment: SpireDeployment;
    before(async () => {
      deployment = await startSpire(cleanups, spire, {
        workloads: [
          ...SPIRE_WORKLOADS,
          { name: 'with-jti', spiffeId: 'spiffe://example.org/with-jti', includeJti: true },
        ],
      });
    });
    after(() => cleanups.run());

    it('gives each workload its own identity through its own agent, at once after start', async (t) => {
      assert.equal(deployment.agentCount, 4);
      for (const { name, spiffeId } of SPIRE_WORKLOADS) {
        const fetched = await spireClient(t, deployment, name).fetchJwtSvid({ audience: AUDIENCE });
        assert.equal(fetched.spiffeId, spiffeId);
        assert.equal(decodeJwt(fetched.svid).sub, spiffeId);
      }
    });

    it('mints JWT-SVIDs of SPIRE’s shape, which our verifier accepts with the bundle from the stream', async (t) => {
      const { svid } = await spireClient(t, deployment, 'agent').fetchJwtSvid({ audience: AUDIENCE });
      const header = decodeProtectedHeader(svid);
      assert.deepEqual(Object.keys(header).sort(), ['alg', 'kid', 'typ']);
      assert.equal(header.alg, 'ES256');
      assert.equal(header.typ, 'JWT');
      assert.match(String(header.kid), /^[A-Za-z0-9]{32}$/);
      const claims = decodeJwt(svid);
      assert.deepEqual(claims.aud, [AUDIENCE], 'aud is an array even for one audience');
      assert.equal(claims.jti, undefined, 'no jti unless the entry asks for one');
      assert.equal((claims.exp ?? 0) - (claims.iat ?? 0), 300);
      assert.deepEqual(Object.keys(claims).sort(), ['aud', 'exp', 'iat', 'sub']);

      const authz = spireClient(t, deployment, 'authz');
      const bundles = await firstBundles(authz);
      assert.deepEqual([...bundles.keys()], ['spiffe://example.org'], 'keyed by the trust domain’s SPIFFE ID');
      const jwks = bundles.get('spiffe://example.org');
      assert.ok(jwks !== null && typeof jwks === 'object' && 'keys' in jwks && Array.isArray(jwks.keys));
      // A plain RFC 7517 set: no `use`, no `alg`, no spiffe_* members.
      assert.deepEqual(Object.keys(jwks), ['keys']);
      for (const key of jwks.keys) assert.deepEqual(Object.keys(key).sort(), ['crv', 'kid', 'kty', 'x', 'y']);

      const source = streamedBundles(t, authz);
      await source.ready(10_000);
      const verified = await verifyJwtSvid(svid, { bundles: source, trustDomain: 'example.org', audience: AUDIENCE });
      assert.equal(verified.subject.id, 'spiffe://example.org/agent');
    });

    it('caches JWT-SVIDs: the same SVID, jti included, to every fetch for the same audience (SPIRE 1.15.3)', async (t) => {
      const client = spireClient(t, deployment, 'with-jti');
      const first = (await client.fetchJwtSvid({ audience: AUDIENCE })).svid;
      const again = (await client.fetchJwtSvid({ audience: AUDIENCE })).svid;
      assert.match(String(decodeJwt(first).jti), /^[A-Za-z0-9_-]{22}$/, '-jwtSVIDIncludeJTI adds a jti');
      assert.equal(again, first, '-jwtSVIDIncludeJTI does not make the agent mint a new SVID per fetch');
      const other = (await client.fetchJwtSvid({ audience: 'http://127.0.0.1:9090' })).svid;
      assert.notEqual(decodeJwt(other).jti, decodeJwt(first).jti, 'another audience is another cache entry');
    });

    it('counts the JWT-SVIDs its agents hand out, cached ones included, per SPIFFE ID', async (t) => {
      // Per ID: the log lines of the previous test's fetches (another workload) may still be on the way.
      const reader = 'spiffe://example.org/reader';
      const before = deployment.jwtSvidsServedTo(reader);
      const totalBefore = deployment.jwtSvidsServed;
      const client = spireClient(t, deployment, 'reader');
      await client.fetchJwtSvid({ audience: AUDIENCE });
      await client.fetchJwtSvid({ audience: AUDIENCE });
      // The agent logs the line before it answers; its pipe may still be on the way here.
      await waitFor('two more log lines', () => deployment.jwtSvidsServedTo(reader) >= before + 2);
      assert.equal(deployment.jwtSvidsServedTo(reader), before + 2);
      assert.ok(deployment.jwtSvidsServed >= totalBefore + 2);
    });

    it('stops every process and removes its sockets on close', async () => {
      const cleanupsHere = new Cleanups();
      const own = await startSpire(cleanupsHere, spire, { workloads: SPIRE_WORKLOADS.slice(0, 1) });
      const pids = own.daemons.map((daemon) => daemon.pid);
      assert.equal(pids.length, 2, 'a server and one agent');
      await own.close();
      assert.deepEqual(pids.filter(alive), []);
      assert.equal(existsSync(socketOf(own, 'agent')), false);
      assert.equal(existsSync(own.serverSocket), false);
      await cleanupsHere.run();
    });
  });

  describe('JWT-SVIDs signed with RSA', () => {
    it('mints RS256 SVIDs whose RSA bundle keys verify them', async (t) => {
      const deployment = await startSpire(t, spire, { jwtKeyType: 'rsa-2048', workloads: SPIRE_WORKLOADS.slice(0, 1) });
      const client = spireClient(t, deployment, 'agent');
      const { svid } = await client.fetchJwtSvid({ audience: AUDIENCE });
      assert.equal(decodeProtectedHeader(svid).alg, 'RS256');
      const bundles = await firstBundles(client);
      const jwks = bundles.get('spiffe://example.org');
      assert.ok(jwks !== null && typeof jwks === 'object' && 'keys' in jwks && Array.isArray(jwks.keys));
      assert.deepEqual(Object.keys(jwks.keys[0]).sort(), ['e', 'kid', 'kty', 'n']);
      const source = streamedBundles(t, client);
      await source.ready(10_000);
      const verified = await verifyJwtSvid(svid, { bundles: source, trustDomain: 'example.org', audience: AUDIENCE });
      assert.equal(verified.header.kid, kidOf(svid));
    });
  });

  describe('one agent and a uid per workload', {
    skip: uidLayout.layout === undefined && `uid layout: ${uidLayout.problem}`,
  }, () => {
    it('tells the workloads apart by the uid they run as, on one socket; root has no identity', async (t) => {
      const deployment = await startSpire(t, spire, { layout: 'uid' });
      assert.equal(deployment.agentCount, 1);
      const sockets = new Set(deployment.workloads.map((w) => w.workloadApi));
      assert.equal(sockets.size, 1);
      const whoAmI = async (options: { uid?: number; gid?: number }) => {
        const child = spawnInGroup(
          t,
          process.execPath,
          ['--input-type=module', '-e', WHO_AM_I, CLIENT_MODULE, ADDRESS_MODULE, [...sockets][0] ?? ''],
          { stdio: ['ignore', 'pipe', 'inherit'], ...options },
        );
        let stdout = '';
        child.stdout?.on('data', (chunk: Buffer) => {
          stdout += chunk.toString();
        });
        await new Promise((resolve) => child.once('close', resolve));
        return stdout.trim();
      };
      for (const workload of deployment.workloads) {
        assert.ok(workload.runAs, `${workload.name} runs as a user of its own`);
        assert.equal(await whoAmI(workload.runAs), workload.spiffeId);
      }
      assert.equal(await whoAmI({}), 'PERMISSION_DENIED');
      // Nor may a caller without an entry read the bundles: authz needs an entry of its own.
      const rootClient = fastClient(t, socketOf(deployment, 'authz'));
      const ended = await new Promise<string>((resolve) => {
        rootClient.watchJwtBundles({ onBundles: () => resolve('bundles'), onEnd: (err) => resolve(err.statusName) });
      });
      assert.equal(ended, 'PERMISSION_DENIED');
      // The SPIRE CLI agrees, asked as the agent's user.
      const agent = deployment.workload('agent');
      const cli = await runInGroup(t, 'setpriv', [
        `--reuid=${agent.runAs?.uid}`,
        `--regid=${agent.runAs?.gid}`,
        '--clear-groups',
        '--',
        deployment.options.binaries.agent,
        'api',
        'fetch',
        'jwt',
        '-audience',
        AUDIENCE,
        '-socketPath',
        socketOf(deployment, 'agent'),
      ]);
      assert.equal(cli.code, 0, cli.stderr);
      assert.match(cli.stdout, /spiffe:\/\/example\.org\/agent/);
    });
  });
});
