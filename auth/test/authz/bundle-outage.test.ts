import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { waitFor } from '@notegate/kit/testing';
import { TOKEN_ENDPOINT_ERRORS } from '../../src/errors/token-endpoint-errors.js';
import { FileBundleSource } from '../../src/spiffe/bundles/file-bundle-source.js';
import type { AuthzHarness } from '../support/authz-fixtures.js';
import { startHarness } from '../support/authz-fixtures.js';
import { testKey } from '../support/svid-fixtures.js';

/** Posts fresh SVIDs until one gets `status`; returns that response's JSON body. */
function untilStatus(h: AuthzHarness, status: number): Promise<Record<string, unknown>> {
  return waitFor(`a ${status} from /token`, async () => {
    const res = await h.post(h.form(await h.svid()));
    return res.status === status ? ((await res.json()) as Record<string, unknown>) : undefined;
  });
}

describe('authz with a --jwt-bundle file that goes away and comes back', () => {
  it('answers 503 temporarily_unavailable while the file is missing or invalid, and 200 once it is restored', async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'notegate-bundle-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const path = join(dir, 'bundle.json');
    const key = testKey('P-256', 'file-key');
    const bundle = JSON.stringify({ keys: [{ ...key.publicJwk, use: 'jwt-svid' }], spiffe_sequence: 1 });
    await writeFile(path, bundle);
    const bundles = new FileBundleSource({ path, trustDomain: 'example.org', pollIntervalMs: 20 }).start();
    await bundles.ready(2_000);
    const h = await startHarness(t, { key, bundles });
    await untilStatus(h, 200);

    await rm(path);
    const unavailable = await untilStatus(h, 503);
    assert.deepEqual(unavailable, {
      error: 'temporarily_unavailable',
      error_description: TOKEN_ENDPOINT_ERRORS.ERR_BUNDLE_UNAVAILABLE.description,
    });
    const line = h.lastAudit();
    assert.match(String(line.reason), /^temporarily_unavailable: .*bundle\.json/);
    assert.equal(line.spiffe_id, 'unverified:spiffe://example.org/agent');

    await writeFile(path, '{"keys": [');
    await waitFor('the invalid file to be read', () => {
      const result = bundles.keysFor('example.org');
      return result.status === 'unavailable' && /not JSON/.test(result.reason);
    });
    assert.equal((await h.post(h.form(await h.svid()))).status, 503);

    await writeFile(path, bundle);
    await untilStatus(h, 200);
  });
});
