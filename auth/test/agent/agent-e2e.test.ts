import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { callMcpServer } from '../../src/agent/mcp-call.js';
import { replayToken } from '../../src/agent/replay-token.js';
import { AuditLog } from '../../src/audit/audit-log.js';
import { AccessTokenCache, fetchAccessToken } from '../../src/index.js';
import type { WorkloadApiClient } from '../../src/spiffe/workload-api/client.js';
import { rejectsAt } from '../support/agent-assertions.js';
import { type AgentStack, startAgentStack } from '../support/agent-stack.js';
import { Cleanups } from '../support/cleanups.js';

/**
 * The agent library against the real deployment on loopback: development identity provider (Workload
 * API over unix sockets), notegate authz fed by that Workload API, and two notes servers.
 */
describe('the agent against identity provider, authz and notes servers', () => {
  const cleanups = new Cleanups();
  let stack: AgentStack;
  let svids: WorkloadApiClient;
  before(async () => {
    stack = await startAgentStack(cleanups);
    svids = stack.agentSvidSource(cleanups);
  });
  after(() => cleanups.run());

  const optionsFor = (resource: string, scope: string) => ({
    resource,
    trustedIssuers: [stack.issuer],
    scope,
    svidSource: svids,
  });

  it('writes a note and finds it again: discovery, SVID, token and tool calls', async () => {
    const writeToken = await fetchAccessToken(optionsFor(stack.notesA.resource, 'notes:write'));
    assert.equal(writeToken.issuer, stack.issuer);
    assert.equal(writeToken.scope, 'notes:write');
    const written = await callMcpServer({
      token: writeToken,
      operation: {
        kind: 'call_tool',
        name: 'notes.write',
        arguments: { title: 'Rotation', body: 'Rotate on Monday.' },
      },
    });
    const path = (written.result.structuredContent as { path: string }).path;
    const readToken = await fetchAccessToken(optionsFor(stack.notesA.resource, 'notes:read'));
    const found = await callMcpServer({
      token: readToken,
      operation: { kind: 'call_tool', name: 'notes.search', arguments: { query: 'monday' } },
    });
    assert.equal(found.protocolVersion, '2026-07-28');
    assert.deepEqual(
      (found.result.structuredContent as { hits: { path: string }[] }).hits.map((hit) => hit.path),
      [path],
    );
    const allows = stack.notesA.auditLines.map((line) => JSON.parse(line)).filter((e) => e.decision === 'allow');
    assert.ok(allows.some((e) => e.tool === 'notes.write' && e.spiffe_id === 'spiffe://example.org/agent'));
  });

  it('refuses an issuer that is not allowlisted before any request reaches it and before any SVID is minted', async () => {
    const issuerRequests = stack.issuerProxy.requests;
    const minted = stack.provider.svidsMinted;
    const lines: string[] = [];
    const err = await rejectsAt(
      fetchAccessToken({
        ...optionsFor(stack.notesA.resource, 'notes:read'),
        trustedIssuers: [`${stack.issuer}/tenant`, 'http://127.0.0.1'],
        audit: new AuditLog((line) => lines.push(line)),
      }),
      'issuer_selection',
      'issuer_refused',
      'refused',
    );
    assert.ok(err.message.includes(stack.issuer));
    assert.equal(stack.issuerProxy.requests - issuerRequests, 0, 'requests that reached the refused issuer');
    assert.equal(stack.provider.svidsMinted - minted, 0, 'FetchJWTSVID calls that reached the identity provider');
    const entry = JSON.parse(lines[0] ?? '{}');
    assert.equal(entry.component, 'agent');
    assert.equal(entry.decision, 'deny');
    assert.match(entry.reason, /^issuer_refused: .*http:\/\/127\.0\.0\.1:\d+/);
    assert.deepEqual(entry.advertised_issuers, [stack.issuer]);
  });

  it('reuses a token until shortly before expiry: no new SVID, no token request', async () => {
    const cache = new AccessTokenCache();
    const first = await fetchAccessToken({ ...optionsFor(stack.notesA.resource, 'notes:read'), cache });
    const issuerRequests = stack.issuerProxy.requests;
    const minted = stack.provider.svidsMinted;
    const again = await fetchAccessToken({ ...optionsFor(stack.notesA.resource, 'notes:read'), cache });
    assert.equal(again, first);
    assert.equal(stack.issuerProxy.requests, issuerRequests);
    assert.equal(stack.provider.svidsMinted, minted);
  });

  it('has the stolen token refused by the other notes server with 401 invalid_token (audience)', async () => {
    const token = await fetchAccessToken(optionsFor(stack.notesA.resource, 'notes:read'));
    const report = await replayToken({
      target: stack.notesB.resource,
      accessToken: token.accessToken,
      operation: { kind: 'call_tool', name: 'notes.search', arguments: { query: 'rotation' } },
    });
    assert.equal(report.status, 401);
    assert.equal(report.error, 'invalid_token');
    assert.equal(report.accepted, false);
    assert.match(report.www_authenticate ?? '', /^Bearer error="invalid_token"/);
    const denial = JSON.parse(stack.notesB.auditLines.at(-1) ?? '{}');
    assert.equal(denial.decision, 'deny');
    assert.match(denial.reason, /^invalid_token: /);
  });

  it('reports a 403 for a tool the token has no scope for, with the scope it needs', async () => {
    const token = await fetchAccessToken(optionsFor(stack.notesA.resource, 'notes:read'));
    const err = await rejectsAt(
      callMcpServer({
        token,
        operation: { kind: 'call_tool', name: 'notes.write', arguments: { title: 'x', body: 'y' } },
      }),
      'mcp_call',
      'insufficient_scope',
      'refused',
    );
    assert.match(err.message, /needs scope "notes:write"/);
  });

  it('reports the token endpoint refusing a scope the policy does not grant (400 invalid_scope)', async () => {
    const err = await rejectsAt(
      fetchAccessToken(optionsFor(stack.notesB.resource, 'notes:write')),
      'token_request',
      'invalid_scope',
      'refused',
    );
    assert.match(err.message, /HTTP 400/);
  });
});
