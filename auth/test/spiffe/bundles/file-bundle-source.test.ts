import assert from 'node:assert/strict';
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { describe, it } from 'node:test';
import { waitFor } from '@notegate/kit/testing';
import { FileBundleSource } from '../../../src/spiffe/bundles/file-bundle-source.js';
import { BundleUnavailableError } from '../../../src/spiffe/bundles/jwt-bundle-source.js';
import { TRUST_DOMAIN, testKey } from '../../support/svid-fixtures.js';

const first = testKey('P-256', 'first');
const second = testKey('P-256', 'second');

async function sourceFor(t: TestContext, content: string | null) {
  const dir = await mkdtemp(join(tmpdir(), 'notegate-bundle-'));
  const path = join(dir, 'bundle.json');
  if (content !== null) await writeFile(path, content);
  const source = new FileBundleSource({ path, trustDomain: TRUST_DOMAIN, pollIntervalMs: 25 }).start();
  t.after(async () => {
    await source.close();
    await rm(dir, { recursive: true, force: true });
  });
  return { source, path, dir };
}

const kids = (source: FileBundleSource): string => {
  const result = source.keysFor(TRUST_DOMAIN);
  return result.status === 'ok' ? [...result.keys.keys()].join(',') : result.status;
};

describe('FileBundleSource', () => {
  it('serves a SPIFFE-format bundle file under the trust domain it was given, ignoring other uses', async (t) => {
    const spiffe = {
      spiffe_sequence: 1,
      spiffe_refresh_hint: 60,
      keys: [
        { ...first.publicJwk, use: 'jwt-svid' },
        { ...second.publicJwk, use: 'x509-svid' },
      ],
    };
    const { source } = await sourceFor(t, JSON.stringify(spiffe));
    await source.ready(2_000);
    assert.equal(kids(source), 'first');
    assert.equal(source.keysFor('other.org').status, 'untrusted');
  });

  it('serves a plain JWKS file', async (t) => {
    const { source } = await sourceFor(t, JSON.stringify({ keys: [first.publicJwk, second.publicJwk] }));
    await source.ready(2_000);
    assert.equal(kids(source), 'first,second');
  });

  it('settles after its first read: the keys are served at once, or the problem is named', async (t) => {
    const { source } = await sourceFor(t, JSON.stringify({ keys: [first.publicJwk] }));
    assert.equal(await source.settled(), null);
    assert.equal(kids(source), 'first');
    const missing = await sourceFor(t, null);
    assert.match((await missing.source.settled()) ?? '', /^cannot read: ENOENT/);
    const invalid = await sourceFor(t, '{"keys": 1}');
    assert.match((await invalid.source.settled()) ?? '', /^bundle is not a JWK Set/);
  });

  it('reports a bundle with no JWT keys as untrusted', async (t) => {
    const { source } = await sourceFor(t, JSON.stringify({ keys: [{ ...first.publicJwk, use: 'x509-svid' }] }));
    await source.ready(2_000);
    assert.equal(source.keysFor(TRUST_DOMAIN).status, 'untrusted');
  });

  it('picks up an in-place rewrite and an atomic rename replacement', async (t) => {
    const { source, path, dir } = await sourceFor(t, JSON.stringify({ keys: [first.publicJwk] }));
    await source.ready(2_000);
    await writeFile(path, JSON.stringify({ keys: [second.publicJwk] }));
    await waitFor('the rewritten bundle', () => kids(source) === 'second');
    const staged = join(dir, '.bundle.json.tmp');
    await writeFile(staged, JSON.stringify({ keys: [first.publicJwk, second.publicJwk] }));
    await rename(staged, path);
    await waitFor('the renamed bundle', () => kids(source) === 'first,second');
  });

  it('is unavailable with a reason while the file is invalid, missing, or not yet there, and recovers', async (t) => {
    const { source, path } = await sourceFor(t, 'not json');
    await assert.rejects(source.ready(100), BundleUnavailableError);
    const invalid = source.keysFor(TRUST_DOMAIN);
    assert.equal(invalid.status, 'unavailable');
    assert.match(invalid.status === 'unavailable' ? invalid.reason : '', /bundle\.json: bundle is not JSON/);

    await writeFile(path, JSON.stringify({ keys: [first.publicJwk] }));
    await waitFor('the repaired bundle', () => kids(source) === 'first');

    await rm(path);
    await waitFor('the removal to make the source unavailable', () => kids(source) === 'unavailable');
    const missing = source.keysFor(TRUST_DOMAIN);
    assert.match(missing.status === 'unavailable' ? missing.reason : '', /ENOENT/);
  });

  it('waits in ready() for a file that appears later', async (t) => {
    const { source, path } = await sourceFor(t, null);
    const ready = source.ready(5_000);
    await writeFile(path, JSON.stringify({ keys: [first.publicJwk] }));
    await ready;
    assert.equal(kids(source), 'first');
  });
});
