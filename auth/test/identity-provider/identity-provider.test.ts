import assert from 'node:assert/strict';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { waitFor } from '@notegate/kit/testing';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { SvidError } from '../../src/spiffe/svid/svid-error.js';
import { verifyJwtSvid } from '../../src/spiffe/svid/verify-jwt-svid.js';
import { WorkloadApiError } from '../../src/spiffe/workload-api/errors.js';
import { ManualClock } from '../support/manual-clock.js';
import { fastClient, heldKids, startProvider, streamedBundles, tempSocketDir } from '../support/provider-fixtures.js';

const AUDIENCE = 'http://127.0.0.1:8080';

async function failsWith(statusName: string, promise: Promise<unknown>, message?: RegExp): Promise<void> {
  await assert.rejects(promise, (err: unknown) => {
    assert.ok(err instanceof WorkloadApiError, String(err));
    assert.equal(err.statusName, statusName, err.message);
    if (message) assert.match(err.message, message);
    return true;
  });
}

describe('development identity provider with the Workload API client', () => {
  it('issues a JWT-SVID that verifies against the streamed bundle', async (t) => {
    const socketDir = await tempSocketDir(t);
    const provider = await startProvider(t, { socketDir });
    const client = fastClient(t, provider.socketPath('agent'));
    const fetched = await client.fetchJwtSvid({ audience: AUDIENCE });
    assert.equal(fetched.spiffeId, 'spiffe://example.org/agent');
    const bundles = streamedBundles(t, client);
    await bundles.ready(5_000);
    const verified = await verifyJwtSvid(fetched.svid, { bundles, trustDomain: 'example.org', audience: AUDIENCE });
    assert.equal(verified.subject.id, 'spiffe://example.org/agent');

    const header = decodeProtectedHeader(fetched.svid);
    assert.deepEqual(Object.keys(header).sort(), ['alg', 'kid', 'typ']);
    assert.equal(header.alg, 'ES256');
    assert.equal(header.typ, 'JWT');
    const claims = decodeJwt(fetched.svid);
    assert.deepEqual(claims.aud, [AUDIENCE]);
    assert.equal(claims.sub, 'spiffe://example.org/agent');
    assert.equal((claims.exp ?? 0) - (claims.iat ?? 0), 300);
    assert.equal(fetched.expiresAt.getTime(), (claims.exp ?? 0) * 1000);
  });

  it('mints a fresh jti on every FetchJWTSVID and serves each workload its own identity', async (t) => {
    const provider = await startProvider(t, { socketDir: await tempSocketDir(t) });
    const agent = fastClient(t, provider.socketPath('agent'));
    const jtis = new Set<unknown>();
    for (let i = 0; i < 3; i++) jtis.add(decodeJwt((await agent.fetchJwtSvid({ audience: AUDIENCE })).svid).jti);
    assert.equal(jtis.size, 3);
    const authz = fastClient(t, provider.socketPath('authz'));
    assert.equal((await authz.fetchJwtSvid({ audience: [AUDIENCE, 'b'] })).spiffeId, 'spiffe://example.org/authz');
  });

  it('signs RS256 with an rsa-2048 key', async (t) => {
    const provider = await startProvider(t, { socketDir: await tempSocketDir(t), keyType: 'rsa-2048' });
    const client = fastClient(t, provider.socketPath('agent'));
    const { svid } = await client.fetchJwtSvid({ audience: AUDIENCE });
    assert.equal(decodeProtectedHeader(svid).alg, 'RS256');
    const bundles = streamedBundles(t, client);
    await bundles.ready(5_000);
    await verifyJwtSvid(svid, { bundles, audience: AUDIENCE });
  });

  it('validates SVIDs with ValidateJWTSVID and refuses a wrong audience', async (t) => {
    const provider = await startProvider(t, { socketDir: await tempSocketDir(t) });
    const client = fastClient(t, provider.socketPath('agent'));
    const { svid } = await client.fetchJwtSvid({ audience: AUDIENCE });
    const validated = await client.validateJwtSvid({ audience: AUDIENCE, svid });
    assert.equal(validated.spiffeId, 'spiffe://example.org/agent');
    assert.deepEqual(validated.claims.aud, [AUDIENCE]);
    assert.equal(validated.claims.sub, 'spiffe://example.org/agent');
    await failsWith('INVALID_ARGUMENT', client.validateJwtSvid({ audience: 'http://other', svid }), /audience/);
    await failsWith('INVALID_ARGUMENT', client.validateJwtSvid({ audience: AUDIENCE, svid: 'a.b' }), /malformed/);
  });

  it('rotation reaches a streaming client; the old key stays until its SVIDs expire, then leaves the bundle', async (t) => {
    const clock = new ManualClock(Date.now());
    const provider = await startProvider(t, { socketDir: await tempSocketDir(t), clock: clock.now });
    const client = fastClient(t, provider.socketPath('agent'));
    const bundles = streamedBundles(t, client);
    await bundles.ready(5_000);
    const old = await client.fetchJwtSvid({ audience: AUDIENCE });
    const oldKid = decodeProtectedHeader(old.svid).kid;

    const newKid = await provider.rotate();
    await waitFor('the rotated bundle', () => heldKids(bundles).length === 2);
    assert.deepEqual(heldKids(bundles), [newKid, oldKid]);
    await verifyJwtSvid(old.svid, { bundles, audience: AUDIENCE });
    const fresh = await client.fetchJwtSvid({ audience: AUDIENCE });
    assert.equal(decodeProtectedHeader(fresh.svid).kid, newKid);

    await provider.pruneRetiredKeys();
    assert.equal(heldKids(bundles).length, 2, 'kept while its SVID is unexpired');
    clock.advanceS(301);
    await provider.pruneRetiredKeys();
    await waitFor('the old key to leave the bundle', () => heldKids(bundles).length === 1);
    assert.deepEqual(heldKids(bundles), [newKid]);
    await assert.rejects(
      verifyJwtSvid(old.svid, { bundles }),
      (err: unknown) => err instanceof SvidError && err.rule === 'kid',
    );
  });

  it('drops a rotated-out key at once when it never signed an SVID', async (t) => {
    const provider = await startProvider(t, { socketDir: await tempSocketDir(t) });
    await provider.rotate();
    assert.equal(provider.bundle().keys.length, 1);
  });

  it('keeps the last bundle while the provider restarts and picks up the new one after reconnecting', async (t) => {
    const socketDir = await tempSocketDir(t);
    const first = await startProvider(t, { socketDir });
    const client = fastClient(t, first.socketPath('agent'));
    const bundles = streamedBundles(t, client);
    await bundles.ready(5_000);
    const firstKids = heldKids(bundles);
    await first.stop();
    assert.deepEqual(heldKids(bundles), firstKids, 'last known state kept during reconnect');

    const second = await startProvider(t, { socketDir });
    const secondKids = second.bundle().keys.map((key) => ('kid' in key ? key.kid : ''));
    await waitFor('the restarted provider bundle', () => String(heldKids(bundles)) === String(secondKids));
    const { svid } = await client.fetchJwtSvid({ audience: AUDIENCE });
    await verifyJwtSvid(svid, { bundles, audience: AUDIENCE });
  });

  it('answers PermissionDenied to a socket asking for an identity that is not its own', async (t) => {
    const provider = await startProvider(t, { socketDir: await tempSocketDir(t) });
    const client = fastClient(t, provider.socketPath('agent'));
    await failsWith(
      'PERMISSION_DENIED',
      client.fetchJwtSvid({ audience: AUDIENCE, spiffeId: 'spiffe://example.org/authz' }),
      /no identity issued/,
    );
  });

  it('answers InvalidArgument to an empty audience', async (t) => {
    const provider = await startProvider(t, { socketDir: await tempSocketDir(t) });
    const client = fastClient(t, provider.socketPath('agent'));
    await failsWith('INVALID_ARGUMENT', client.fetchJwtSvid({ audience: [] }), /audience must be specified/);
    await failsWith('INVALID_ARGUMENT', client.fetchJwtSvid({ audience: [''] }), /audience must be specified/);
  });

  it('reports an absent socket as a clear Unavailable error naming it', async (t) => {
    const socketDir = await tempSocketDir(t);
    const client = fastClient(t, join(socketDir, 'missing.sock'));
    await failsWith(
      'UNAVAILABLE',
      client.fetchJwtSvid({ audience: AUDIENCE }),
      /FetchJWTSVID at unix:\/\/.*missing\.sock failed: cannot connect: no socket at that path/,
    );
  });

  it('keeps a bundle source unavailable until its first message', async (t) => {
    const socketDir = await tempSocketDir(t);
    const bundles = streamedBundles(t, fastClient(t, join(socketDir, 'missing.sock')));
    assert.equal(heldKids(bundles), 'unavailable');
    await assert.rejects(bundles.ready(50), /no JWT bundle available/);
  });

  it('creates owner-only sockets in a 0700 directory and removes them on stop', async (t) => {
    const socketDir = await tempSocketDir(t);
    const provider = await startProvider(t, { socketDir });
    assert.equal((await stat(socketDir)).mode & 0o777, 0o700);
    for (const name of ['agent', 'authz']) {
      const info = await stat(provider.socketPath(name));
      assert.ok(info.isSocket());
      assert.equal(info.mode & 0o777, 0o600);
    }
    await provider.stop();
    await assert.rejects(stat(provider.socketPath('agent')), { code: 'ENOENT' });
  });

  it('refuses to start on a socket another provider is serving', async (t) => {
    const socketDir = await tempSocketDir(t);
    await startProvider(t, { socketDir });
    await assert.rejects(startProvider(t, { socketDir }), /agent\.sock is in use by another process/);
  });
});
