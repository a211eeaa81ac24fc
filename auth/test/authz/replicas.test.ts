import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { waitFor } from '@notegate/kit/testing';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import * as oauth from 'oauth4webapi';
import { RESOURCE_A } from '../support/authz-fixtures.js';
import type { Replica } from '../support/replica-stack.js';
import { ISSUER, startReplicaStack } from '../support/replica-stack.js';

const accessTokenOf = async (response: Response) => {
  assert.equal(response.status, 200, await response.clone().text());
  return ((await response.json()) as { access_token: string }).access_token;
};

const kidsPublishedBy = async (replica: Replica) => {
  const jwks = (await (await fetch(new URL('/jwks.json', replica.url))).json()) as { keys: { kid: string }[] };
  return jwks.keys.map((key) => key.kid);
};

describe('two authz replicas with one Redis store and one key file', () => {
  it('refuses at replica B an SVID already used at replica A (reject mode)', async (t) => {
    const { replicas, svid } = await startReplicaStack(t);
    const [a, b] = replicas as [Replica, Replica];
    const assertion = await svid();
    assert.equal((await a.token(assertion)).status, 200);
    const replayed = await b.token(assertion);
    assert.equal(replayed.status, 401);
    assert.equal(((await replayed.json()) as { error: string }).error, 'invalid_client');
    const denial = (await b.audit()).at(-1);
    assert.equal(denial?.decision, 'deny');
    assert.match(String(denial?.reason), /^invalid_client: The client assertion has already been used\. .*\(use 2\)/);
  });

  it('issues at replica A a token that a notes server, which fetched replica B’s key set, accepts', async (t) => {
    const { replicas, svid, callNotes } = await startReplicaStack(t);
    const [a, b] = replicas as [Replica, Replica];
    assert.deepEqual(await kidsPublishedBy(a), await kidsPublishedBy(b));
    const token = await accessTokenOf(await a.token(await svid()));
    const answer = await callNotes(token);
    assert.equal(answer.status, 200, await answer.clone().text());

    // Independent verifiers agree: jose against B's key set, and oauth4webapi as an RFC 9068 resource server.
    const { payload } = await jwtVerify(token, createRemoteJWKSet(new URL('/jwks.json', b.url)), {
      issuer: ISSUER,
      audience: RESOURCE_A,
      typ: 'at+jwt',
      algorithms: ['ES256'],
    });
    assert.equal(payload.scope, 'notes:read');
    const as: oauth.AuthorizationServer = { issuer: ISSUER, jwks_uri: new URL('/jwks.json', b.url).href };
    const request = new Request(RESOURCE_A, { headers: { authorization: `Bearer ${token}` } });
    const claims = await oauth.validateJwtAccessToken(as, request, RESOURCE_A, {
      [oauth.allowInsecureRequests]: true,
    });
    assert.equal(claims.iss, ISSUER);
  });

  it('answers 503 with an audit line while the store is down, and serves again once it is back', async (t) => {
    const { replicas, svid, redis } = await startReplicaStack(t);
    const [a] = replicas as [Replica, Replica];
    assert.equal((await a.token(await svid())).status, 200);

    await redis.stop();
    const refused = await waitFor('a 503 from the replica', async () => {
      const response = await a.token(await svid());
      return response.status === 503 ? response : undefined;
    });
    const body = (await refused.json()) as Record<string, unknown>;
    assert.deepEqual(body, {
      error: 'temporarily_unavailable',
      error_description: 'The token service is temporarily unavailable; retry later.',
    });
    const denial = (await a.audit()).at(-1);
    assert.equal(denial?.decision, 'deny');
    assert.match(String(denial?.reason), /^temporarily_unavailable: .*\(redis replay store: ReplayStoreError: /);
    assert.match(a.output.stderr, /replay store redis:\/\/127\.0\.0\.1:\d+\/0: connection lost/);

    await redis.restart();
    const served = await waitFor(
      'the replica to serve again',
      async () => (await a.token(await svid())).status === 200,
      15_000,
    );
    assert.equal(served, true);
    assert.equal(a.child.exitCode, null, 'the process stayed up');
  });

  it('rotates keys through the key file without one failed request', async (t) => {
    const { replicas, svid, callNotes, keygen } = await startReplicaStack(t);
    const [a, b] = replicas as [Replica, Replica];
    const [oldKid] = await kidsPublishedBy(b);
    const failures: string[] = [];
    let requests = 0;
    let running = true;
    // Token requests alternate between the replicas; each token is used at the notes server at once.
    const traffic = (async () => {
      while (running) {
        const replica = requests % 2 === 0 ? a : b;
        requests += 1;
        const response = await replica.token(await svid());
        if (response.status !== 200) {
          failures.push(`token: ${response.status} ${await response.text()}`);
          continue;
        }
        const token = ((await response.json()) as { access_token: string }).access_token;
        const answer = await callNotes(token);
        if (answer.status !== 200) failures.push(`notes (kid ${decodeProtectedHeader(token).kid}): ${answer.status}`);
      }
    })();
    try {
      // 1. A new key goes second: published by both replicas, signing nothing yet.
      const newKid = await keygen('--add');
      for (const replica of [a, b]) {
        await waitFor('the new key to be published', async () => (await kidsPublishedBy(replica)).includes(newKid));
      }
      // 2. After one refetch window of the notes server (10 s), the new key moves first and signs.
      await new Promise((resolve) => setTimeout(resolve, 10_500));
      await keygen('--promote', newKid);
      for (const replica of [a, b]) {
        await waitFor('the new key to sign', async () => (await kidsPublishedBy(replica))[0] === newKid);
      }
      const signedAfter = await accessTokenOf(await a.token(await svid()));
      assert.equal(decodeProtectedHeader(signedAfter).kid, newKid);
      // 3. Once no token of the old key is in use any more, it goes (here: at once, the traffic uses each token at once).
      await keygen('--remove', String(oldKid));
      for (const replica of [a, b]) {
        await waitFor('the old key to go', async () => !(await kidsPublishedBy(replica)).includes(String(oldKid)));
      }
      const before = requests;
      await waitFor('more traffic after the rotation', () => requests > before + 10);
    } finally {
      running = false;
      await traffic;
    }
    assert.deepEqual(failures, []);
    assert.ok(requests > 20, `${requests} requests during the rotation`);
    assert.match(a.output.stderr, /signing keys reloaded from .*: signing with /);
  });
});
