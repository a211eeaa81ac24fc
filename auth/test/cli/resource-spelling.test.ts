import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startAgentStack } from '../support/agent-stack.js';
import { Cleanups } from '../support/cleanups.js';
import { runNotegate, startNotegate } from '../support/cli-process.js';

/** The stderr lines that are not the agent's audit lines (JSON). */
function errorLines(stderr: string): string[] {
  return stderr.split('\n').filter((line) => line !== '' && !line.startsWith('{'));
}

describe('one resource, three spellings (processes; docs/protocol.md#identifiers)', () => {
  it('serves a notes server named by a non-canonical --resource to an agent given the same URL', async (t) => {
    const cleanups = new Cleanups();
    t.after(() => cleanups.run());
    // The policy grants the resource in one spelling, the server and the agent are given another.
    const stack = await startAgentStack(cleanups, { spareSpelling: (port) => `HTTP://LocalHost:${port}/mcp` });
    const port = stack.spare.port;
    const spelling = `http://LOCALHOST:${port}/mcp/`;
    const name = `http://localhost:${port}/mcp`;
    const server = await startNotegate(t, [
      'notes-server',
      '--name',
      'spelled',
      '--resource',
      spelling,
      '--issuer',
      stack.issuer,
      '--jwks-uri',
      new URL('/jwks.json', stack.authz.url).href,
      '--notes-dir',
      `${stack.dir}/spelled`,
      '--audit-log',
      '/dev/null',
    ]);
    // The line names the bound address and the endpoint path of the name.
    const listening = new RegExp(`^listening on http://(127\\.0\\.0\\.1|\\[::1\\]):${port}/mcp\\n$`);
    assert.match(server.output.stdout, listening, server.output.stderr);
    const metadata = await fetch(`http://localhost:${port}/.well-known/oauth-protected-resource/mcp`);
    assert.equal(
      ((await metadata.json()) as { resource?: string }).resource,
      name,
      'it names itself in the resource form',
    );

    const agent = (resource: string, ...args: string[]) =>
      runNotegate(['agent', ...stack.targetArgs(resource), ...args]);
    const note = JSON.stringify({ title: 'Spelled', body: 'A lighthouse reached by another spelling.' });
    const write = await agent(spelling, '--tool', 'notes.write', '--arguments', note);
    assert.equal(write.code, 0, write.stderr);
    assert.deepEqual(errorLines(write.stderr), []);
    const search = await agent(spelling, '--tool', 'notes.search', '--arguments', '{"query":"lighthouse"}');
    assert.equal(search.code, 0, search.stderr);
    assert.deepEqual(
      JSON.parse(search.stdout).structuredContent.hits.map((hit: { path: string }) => hit.path),
      ['Spelled.md'],
    );
    const allowed = stack.authzAudit.filter((line) => line.includes('"decision":"allow"'));
    assert.equal(allowed.length, 2, 'two tokens, each for the granted resource');

    // The path keeps its case: another path is another resource, with no metadata, and nothing reaches the issuer.
    const issuerRequests = stack.issuerProxy.requests;
    const other = await agent(`http://localhost:${port}/MCP`, '--tool', 'notes.search', '--arguments', '{"query":"x"}');
    assert.equal(other.code, 5, other.stderr);
    assert.match(
      other.stderr,
      /protected_resource_metadata: http_404: GET \S+\/oauth-protected-resource\/MCP answered 404/,
    );
    assert.equal(stack.issuerProxy.requests, issuerRequests);
  });
});
