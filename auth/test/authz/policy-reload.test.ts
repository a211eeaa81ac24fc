import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { describe, it } from 'node:test';
import { writeFileAtomic } from '@notegate/kit';
import { waitFor } from '@notegate/kit/testing';
import { POLICY_YAML } from '../support/authz-fixtures.js';
import { NEEDS_REDIS_SERVER } from '../support/redis-server.js';
import type { Replica } from '../support/replica-stack.js';
import { sampleValue, scrape, startReplicaStack } from '../support/replica-stack.js';

/** The policy without the agent's grant: its token requests get 400 unauthorized_client. */
const WITHOUT_AGENT = POLICY_YAML.replace(/ {2}- spiffe_id: spiffe:\/\/example\.org\/agent\n(?: {4}.*\n)+/, '');

/** As docs/protocol.md#policy-reload advises: the new file replaces the old one whole. */
const replace = (path: string, text: string) => writeFileAtomic(dirname(path), basename(path), text);

const reloads = async (replica: Replica, result: string) =>
  sampleValue(await scrape(replica.metricsUrl), 'notegate_config_reloads_total', { file: 'policy', result });

describe('policy reload', NEEDS_REDIS_SERVER, () => {
  it('puts a changed policy file in force, and keeps the old policy when the new one is invalid', async (t) => {
    const { replicas, svid, policy } = await startReplicaStack(t, { count: 1 });
    const [authz] = replicas as [Replica];
    assert.notEqual(WITHOUT_AGENT, POLICY_YAML);
    assert.equal((await authz.token(await svid())).status, 200);

    await replace(policy, WITHOUT_AGENT);
    await waitFor('the agent to lose its grant', async () => (await authz.token(await svid())).status === 400);
    assert.match(authz.output.stderr, /policy reloaded from .*policy\.yaml \(1 grants\)/);
    assert.equal(await reloads(authz, 'ok'), 1);

    const invalid = POLICY_YAML.replace('[notes:read]\n  - spiffe_id', '[notes:read, "bad scope"]\n  - spiffe_id');
    assert.notEqual(invalid, POLICY_YAML);
    await replace(policy, invalid);
    await waitFor('the refusal', () => /policy reload refused/.test(authz.output.stderr));
    assert.match(
      authz.output.stderr,
      /policy reload refused, the previous policy stays in force: .*grants\[0\]\.resources\[1\]\.scopes\[1\]: "bad scope" is not a notes scope \(allowed: notes:read, notes:write\)/,
    );
    assert.equal(await reloads(authz, 'invalid'), 1);
    // Still the policy before the invalid file: the agent has no grant.
    assert.equal((await authz.token(await svid())).status, 400);

    await replace(policy, POLICY_YAML.replaceAll('example.org', 'other.example'));
    await waitFor('the second refusal', async () => (await reloads(authz, 'invalid')) === 2);
    assert.match(authz.output.stderr, /trust_domain: 'other\.example' differs from 'example\.org' in force/);
  });

  it('reads the policy again on SIGHUP and stays up', async (t) => {
    const { replicas, svid, policy } = await startReplicaStack(t, { count: 1 });
    const [authz] = replicas as [Replica];
    authz.child.kill('SIGHUP');
    await waitFor('the SIGHUP line', () => /SIGHUP: reading the policy file again/.test(authz.output.stderr));
    assert.equal(authz.child.exitCode, null);
    assert.equal((await authz.token(await svid())).status, 200);

    await replace(policy, WITHOUT_AGENT);
    authz.child.kill('SIGHUP');
    await waitFor('the agent to lose its grant', async () => (await authz.token(await svid())).status === 400);
    assert.equal(await readFile(policy, 'utf8'), WITHOUT_AGENT);
    assert.equal(authz.child.exitCode, null);
  });
});
