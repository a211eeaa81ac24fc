import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { describe, it } from 'node:test';
import { spawnNode, tempDir, waitFor } from '@notegate/kit/testing';
import { POLICY_YAML, tokenForm } from '../support/authz-fixtures.js';
import { MAIN, runNotegate } from '../support/cli-process.js';
import { NEEDS_REDIS_SERVER, startRedisServer } from '../support/redis-server.js';
import { AUDIENCE, SUBJECT, signSvid, testKey } from '../support/svid-fixtures.js';

const ISSUER = AUDIENCE;

/** A policy, a bundle file of `key` and the arguments of `notegate authz` on a free port with them. */
async function workspace(t: TestContext) {
  const dir = tempDir(t, 'notegate-authz-redis-');
  const key = testKey('P-256', 'agent-key');
  const bundle = join(dir, 'bundle.json');
  await writeFile(bundle, JSON.stringify({ keys: [key.publicJwk] }));
  const policy = join(dir, 'policy.yaml');
  await writeFile(policy, POLICY_YAML);
  const args = ['authz', '--issuer', ISSUER, '--port', '0', '--policy', policy, '--jwt-bundle', bundle];
  const svid = () => {
    const nowS = Math.floor(Date.now() / 1000);
    return signSvid(key, 'ES256', { sub: SUBJECT, aud: [ISSUER], iat: nowS, exp: nowS + 300, jti: randomUUID() });
  };
  return { dir, args, svid };
}

/** The environment without the password variable, so only what a test gives counts. */
function envWithout(name: string): NodeJS.ProcessEnv {
  const { [name]: _unused, ...rest } = process.env;
  return rest;
}

/** Starts authz; resolves with its base URL and output once it listens. */
async function startAuthz(t: TestContext, args: readonly string[], env = envWithout('NOTEGATE_REDIS_PASSWORD')) {
  const { child, output } = spawnNode(t, [MAIN, ...args], env);
  const url = await waitFor('the listening line', () => /^listening on (\S+)\n/.exec(output.stdout)?.[1], 15_000);
  return { child, output, url };
}

const token = (url: string, assertion: string) =>
  fetch(new URL('/token', url), { method: 'POST', body: tokenForm(assertion) });

describe('notegate authz on a Redis replay store', NEEDS_REDIS_SERVER, () => {
  it('exits 2 in reject mode on a server that may evict keys, naming the setting; starts in allow-reuse mode', async (t) => {
    const redis = await startRedisServer(t, ['--maxmemory-policy', 'allkeys-lru']);
    const { args } = await workspace(t);
    const refused = await runNotegate([...args, '--replay-store', redis.url], envWithout('NOTEGATE_REDIS_PASSWORD'));
    assert.equal(refused.code, 2);
    assert.match(
      refused.stderr,
      /--replay-store redis:\/\/127\.0\.0\.1:\d+\/0: maxmemory-policy is allkeys-lru: .*reject mode needs noeviction \(CONFIG SET maxmemory-policy noeviction\)/,
    );
    const reuse = await startAuthz(t, [
      ...args,
      '--replay-store',
      redis.url,
      '--svid-replay',
      'allow-reuse-within-lifetime',
    ]);
    await waitFor('the report', () =>
      /maxmemory-policy is allkeys-lru: evicted entries make/.test(reuse.output.stderr),
    );
  });

  it('answers 503 once the server it uses turns to an evicting policy, and tokens again once it is back to noeviction', async (t) => {
    const redis = await startRedisServer(t);
    const { args, svid } = await workspace(t);
    const authz = await startAuthz(t, [...args, '--replay-store', redis.url]);
    await waitFor('the store to connect', () => /replay store .*: connected/.test(authz.output.stderr));
    assert.equal((await token(authz.url, await svid())).status, 200);
    await redis.restart(['--maxmemory-policy', 'allkeys-random']);
    await waitFor('the reconnect to find the new policy', () =>
      /maxmemory-policy is allkeys-random: .*token requests get 503 until it is/.test(authz.output.stderr),
    );
    assert.equal((await token(authz.url, await svid())).status, 503);
    await redis.restart(['--maxmemory-policy', 'noeviction']);
    await waitFor('tokens again', async () => (await token(authz.url, await svid())).status === 200);
  });

  it('takes the password from --replay-store-password-file, and warns about one in the URL', async (t) => {
    const password = `pw-${randomUUID()}`;
    const redis = await startRedisServer(t, ['--requirepass', password]);
    const { dir, args, svid } = await workspace(t);
    const passwordFile = join(dir, 'redis-password');
    await writeFile(passwordFile, `${password}\n`, { mode: 0o600 });
    const fromFile = await startAuthz(t, [
      ...args,
      '--replay-store',
      redis.url,
      '--replay-store-password-file',
      passwordFile,
    ]);
    await waitFor('the store to connect', () => /replay store .*: connected/.test(fromFile.output.stderr));
    assert.equal((await token(fromFile.url, await svid())).status, 200);
    assert.doesNotMatch(fromFile.output.stderr, /visible to every local user/);

    const inUrl = redis.url.replace('redis://', `redis://:${password}@`);
    const fromUrl = await startAuthz(t, [...args, '--replay-store', inUrl]);
    await waitFor('the store to connect', () => /replay store .*: connected/.test(fromUrl.output.stderr));
    assert.equal((await token(fromUrl.url, await svid())).status, 200);
    assert.match(
      fromUrl.output.stderr,
      /the password in --replay-store is visible to every local user \(ps\); give it with --replay-store-password-file or NOTEGATE_REDIS_PASSWORD/,
    );
    for (const output of [fromFile.output, fromUrl.output])
      assert.doesNotMatch(output.stdout + output.stderr, new RegExp(password));
  });

  it('exits 2 on a mistyped store or a password given twice, never printing the password', async (t) => {
    const { dir, args } = await workspace(t);
    const passwordFile = join(dir, 'redis-password');
    await writeFile(passwordFile, 'pw-in-file\n', { mode: 0o600 });
    const cases: ReadonlyArray<readonly [string[], NodeJS.ProcessEnv, RegExp]> = [
      [['--replay-store', 'redis:pw-typed@cache'], {}, /--replay-store: 'redis:…@cache' has no host/],
      [['--replay-store', 'redis:/:pw-typed@cache'], {}, /--replay-store: 'redis:\/…@cache' has no host/],
      [
        ['--replay-store', 'redis://:pw-typed@cache', '--replay-store-password-file', passwordFile],
        {},
        /carries a password, and so does the password file/,
      ],
      [
        ['--replay-store', 'redis://cache', '--replay-store-password-file', passwordFile],
        { NOTEGATE_REDIS_PASSWORD: 'pw-in-env' },
        /--replay-store-password-file: NOTEGATE_REDIS_PASSWORD is set too/,
      ],
      [['--replay-store-password-file', passwordFile], {}, /--replay-store-password-file: only a Redis --replay-store/],
    ];
    for (const [extra, env, message] of cases) {
      const run = await runNotegate([...args, ...extra], { ...envWithout('NOTEGATE_REDIS_PASSWORD'), ...env });
      assert.equal(run.code, 2, extra.join(' '));
      assert.match(run.stderr, message);
      assert.doesNotMatch(run.stdout + run.stderr, /pw-/, 'no password printed');
    }
  });
});
