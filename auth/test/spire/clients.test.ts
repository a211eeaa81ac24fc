import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { spawnNode, waitFor } from '@notegate/kit/testing';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import type { IdentityStack } from '../support/agent-stack.js';
import { Cleanups } from '../support/cleanups.js';
import { ProxyProcess } from '../support/proxy-process.js';
import { spireForTests, startSpire, startSpireStack } from '../support/spire.js';

const spire = await spireForTests();
const WRAPPER_MAIN = fileURLToPath(new URL('../../src/cli/mcp-svid-stdio.js', import.meta.url));
/** Access tokens of 3 s: both clients must replace theirs within the test. */
const ACCESS_TOKEN_LIFETIME_S = 3;

/** A stdio child that keeps every distinct token it finds in the wrapper's token file, in order, in <record>. */
const TOKEN_WATCHER = `
const fs = require('node:fs');
const [record] = process.argv.slice(1);
const seen = [];
setInterval(() => {
  let token;
  try { token = fs.readFileSync(process.env.MCP_ACCESS_TOKEN_FILE, 'utf8'); } catch { return; }
  if (seen.at(-1) === token) return;
  seen.push(token);
  fs.writeFileSync(record + '.tmp', JSON.stringify(seen));
  fs.renameSync(record + '.tmp', record);
}, 50);
`;

const allowLines = (lines: readonly string[]) =>
  lines.map((line) => JSON.parse(line)).filter((entry) => entry.decision === 'allow');

describe('SPIRE: the long-running clients obtain and refresh their tokens through a SPIRE agent', {
  skip: spire.skip,
}, () => {
  const cleanups = new Cleanups();
  let stack: IdentityStack;
  before(async () => {
    const deployment = await startSpire(cleanups, spire);
    stack = await startSpireStack(cleanups, deployment, {
      replayMode: 'allow-reuse-within-lifetime',
      accessTokenLifetimeS: ACCESS_TOKEN_LIFETIME_S,
    });
  });
  after(() => cleanups.run());

  it('notegate proxy serves a call after its first token expired with a new one, from the cached SVID', async () => {
    const proxy = ProxyProcess.start(cleanups, stack.targetArgs(stack.notesA.resource));
    await proxy.initialize();
    const search = { name: 'notes.search', arguments: { query: 'anything' } };
    assert.ok((await proxy.request('tools/call', search)).result);
    const first = allowLines(stack.notesA.auditLines).at(-1)?.token_jti;
    await new Promise((resolve) => setTimeout(resolve, (ACCESS_TOKEN_LIFETIME_S + 0.5) * 1000));
    const later = await proxy.request('tools/call', search);
    assert.ok(later.result, JSON.stringify(later));
    const last = allowLines(stack.notesA.auditLines).at(-1);
    assert.notEqual(last?.token_jti, first, 'the later call carried another token');
    assert.equal(last?.spiffe_id, 'spiffe://example.org/agent');
    // The SPIRE agent handed the proxy the same SVID for both token requests.
    const issued = allowLines(stack.authzAudit);
    assert.ok(issued.length >= 2);
    assert.equal(issued.at(-1)?.svid_jti, null, 'SPIRE mints no jti by default');
    assert.ok(Number(issued.at(-1)?.svid_uses) >= 2, JSON.stringify(issued.at(-1)));
  });

  it('mcp-svid-stdio replaces the token file before the token expires, while its child runs', async () => {
    const root = await mkdtemp(join(tmpdir(), 'mcp-svid-stdio-spire-'));
    cleanups.after(() => rm(root, { recursive: true, force: true }));
    const record = join(root, 'tokens.json');
    const wrapper = spawnNode(
      cleanups,
      [
        WRAPPER_MAIN,
        ...stack.targetArgs(stack.notesA.resource),
        '--scope',
        'notes:read',
        '--audit-log',
        '/dev/null',
        '--',
        process.execPath,
        '-e',
        TOKEN_WATCHER,
        record,
      ],
      { ...process.env, TMPDIR: root },
    );
    const tokens = await waitFor('a second token in the file', () => {
      if (!existsSync(record)) return undefined;
      const seen: string[] = JSON.parse(readFileSync(record, 'utf8'));
      return seen.length >= 2 ? seen : undefined;
    });
    for (const token of tokens.slice(0, 2)) {
      assert.equal(decodeProtectedHeader(token).typ, 'at+jwt');
      assert.equal(decodeJwt(token).aud, stack.notesA.resource);
      assert.equal(decodeJwt(token).sub, 'spiffe://example.org/agent');
    }
    assert.notEqual(decodeJwt(tokens[1] ?? '').jti, decodeJwt(tokens[0] ?? '').jti);
    assert.equal(wrapper.output.stdout, '');
    wrapper.child.kill('SIGTERM');
    await wrapper.exited;
  });
});
