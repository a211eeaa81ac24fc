import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import type { FetchLike } from '@modelcontextprotocol/client';
import { waitFor } from '@notegate/kit/testing';
import { fetchAccessToken } from '../../src/agent/fetch-access-token.js';
import { AuditLog } from '../../src/audit/audit-log.js';
import { runProxy } from '../../src/proxy/run-proxy.js';
import { type AgentStack, startAgentStack } from '../support/agent-stack.js';
import { Cleanups } from '../support/cleanups.js';
import { ProxyProcess, type WireMessage } from '../support/proxy-process.js';

/** How many access tokens authz has minted so far (one allow line each). */
const tokensIssued = (stack: AgentStack) =>
  stack.authzAudit.filter((line) => JSON.parse(line).decision === 'allow').length;

/** The access-token jti of every request notes server `lines` allowed, in order. */
const allowedJtis = (lines: readonly string[]) =>
  lines
    .map((line) => JSON.parse(line))
    .filter((entry) => entry.decision === 'allow')
    .map((entry) => entry.token_jti);

const search = { name: 'notes.search', arguments: { query: 'anything' } };

describe('notegate proxy keeps its token fresh (authz minting 3 s tokens)', () => {
  const cleanups = new Cleanups();
  let stack: AgentStack;
  before(async () => {
    stack = await startAgentStack(cleanups, { accessTokenLifetimeS: 3 });
  });
  after(() => cleanups.run());

  it('serves a call made after the first token expired with a new token', async () => {
    const proxy = ProxyProcess.start(cleanups, stack.targetArgs(stack.notesA.resource));
    await proxy.initialize();
    assert.ok((await proxy.request('tools/call', search)).result);
    const first = allowedJtis(stack.notesA.auditLines).at(-1);
    // The real expiry at the notes server, not a clock of our own: wait it out (3 s).
    await new Promise((resolve) => setTimeout(resolve, 3_500));
    const later = await proxy.request('tools/call', search);
    assert.ok(later.result, JSON.stringify(later));
    const last = allowedJtis(stack.notesA.auditLines).at(-1);
    assert.notEqual(last, first, 'the later call carried another token');
    assert.ok(tokensIssued(stack) >= 2);
    assert.match(proxy.output.stderr, /access token from .*expires/);
  });
});

describe('notegate proxy after a 401', () => {
  const cleanups = new Cleanups();
  let stack: AgentStack;
  before(async () => {
    stack = await startAgentStack(cleanups);
  });
  after(() => cleanups.run());

  it('gets one new token and retries once when the server keeps answering 401, never more', async () => {
    const proxy = ProxyProcess.start(cleanups, [...stack.targetArgs(stack.notesC.resource), '--scope', 'notes:read']);
    const before = tokensIssued(stack);
    const first = await proxy.request('tools/list');
    assert.equal(first.error?.data?.error, 'invalid_token');
    assert.match(first.error?.message ?? '', /answered 401 to a newly obtained token as well/);
    assert.equal(tokensIssued(stack) - before, 2, 'the first token and one replacement');
    const deniedSoFar = stack.notesC.auditLines.length;
    assert.equal(deniedSoFar, 2, 'one request, one retry');
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(tokensIssued(stack) - before, 2, 'nothing more in the background');
    assert.equal(stack.notesC.auditLines.length, deniedSoFar);
    await proxy.request('tools/list');
    assert.equal(tokensIssued(stack) - before, 3, 'the next request replaces the refused token once');
  });

  it('serves a request whose first token is refused with the replacement token', async () => {
    // A notes server that refuses the first token it is shown, as one does after losing its key set.
    let refusals = 0;
    const refuseFirst: FetchLike = async (url, init) => {
      if (refusals === 0) {
        refusals += 1;
        return new Response('{"error":"invalid_token"}', {
          status: 401,
          headers: { 'www-authenticate': 'Bearer error="invalid_token"', 'content-type': 'application/json' },
        });
      }
      return fetch(url, init);
    };
    const svidSource = stack.agentSvidSource(cleanups);
    const input = new PassThrough();
    const output = new PassThrough();
    const lines: WireMessage[] = [];
    let text = '';
    output.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      lines.splice(
        0,
        lines.length,
        ...text
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line)),
      );
    });
    let stop: (why: string) => void = () => undefined;
    const before = tokensIssued(stack);
    const running = runProxy({
      resource: stack.notesA.resource,
      fetchToken: () =>
        fetchAccessToken({ resource: stack.notesA.resource, trustedIssuers: [stack.issuer], svidSource }),
      refreshMarginMs: 60_000,
      timeoutMs: 10_000,
      input,
      output,
      log: () => undefined,
      audit: new AuditLog(() => undefined),
      stopRequested: new Promise((resolve) => {
        stop = resolve;
      }),
      fetch: refuseFirst,
    });
    input.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: search })}\n`);
    const answer = await waitFor('the answer', () => lines.find((line) => line.id === 1), 10_000);
    assert.ok(answer.result, JSON.stringify(answer));
    assert.equal(refusals, 1);
    assert.equal(tokensIssued(stack) - before, 2);
    stop('test done');
    assert.equal(await running, 0);
  });
});
