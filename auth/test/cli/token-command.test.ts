import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runCommand } from '@notegate/kit/cli';
import { assertOptionsDocumented, capturedIo } from '@notegate/kit/testing';
import { decodeJwt } from 'jose';
import { tokenCommand } from '../../src/cli/token-command.js';
import { type AgentStack, startAgentStack } from '../support/agent-stack.js';
import { Cleanups } from '../support/cleanups.js';
import { runNotegate, TEST_PROGRAM } from '../support/cli-process.js';
import { mcpHeaders, rpc } from '../support/notes-server-fixture.js';

describe('notegate token (a process against the real deployment)', () => {
  const cleanups = new Cleanups();
  let stack: AgentStack;
  before(async () => {
    stack = await startAgentStack(cleanups);
  });
  after(() => cleanups.run());

  const target = (resource: string, trustedIssuer = stack.issuer) => [
    'token',
    ...stack.targetArgs(resource, { trustedIssuer }),
    '--audit-log',
    '/dev/null',
  ];

  it('prints a token that works as the bearer header of a plain HTTP request, as curl would send it', async () => {
    const run = await runNotegate(target(stack.notesA.resource));
    assert.equal(run.code, 0, run.stderr);
    const token = run.stdout.trim();
    assert.equal(run.stdout, `${token}\n`, 'the token and one newline, nothing else');
    const answer = await fetch(stack.notesA.resource, {
      method: 'POST',
      headers: mcpHeaders(token),
      body: rpc('tools/list'),
    });
    assert.equal(answer.status, 200);
    const body = (await answer.json()) as { result: { tools: { name: string }[] } };
    assert.deepEqual(
      body.result.tools.map((tool) => tool.name),
      ['notes.read', 'notes.search', 'notes.write'],
    );
  });

  it('--json prints access_token, expires_in, scope and issuer; --scope narrows the grant', async () => {
    const run = await runNotegate([...target(stack.notesA.resource), '--json', '--scope', 'notes:read']);
    assert.equal(run.code, 0, run.stderr);
    const printed = JSON.parse(run.stdout) as Record<string, unknown>;
    assert.deepEqual(Object.keys(printed), ['access_token', 'expires_in', 'scope', 'issuer']);
    assert.equal(printed.scope, 'notes:read');
    assert.equal(printed.issuer, stack.issuer);
    assert.ok(typeof printed.expires_in === 'number' && printed.expires_in > 0 && printed.expires_in <= 300);
    assert.equal(decodeJwt(String(printed.access_token)).aud, stack.notesA.resource);
  });

  const failures: [string, () => string[], number, RegExp][] = [
    [
      'an untrusted issuer (exit 3, as the agent)',
      () => target(stack.notesA.resource, 'http://127.0.0.1:1'),
      3,
      /^notegate token: issuer_selection: issuer_refused: /,
    ],
    [
      'scopes the policy does not grant (exit 3)',
      () => target(stack.notesB.resource),
      3,
      /^notegate token: token_request: invalid_scope: HTTP 400 /,
    ],
    [
      'no Workload API (exit 5)',
      () => [...target(stack.notesA.resource), '--workload-api', 'unix:///nonexistent/agent.sock'],
      5,
      /^notegate token: svid: workload_api_unavailable: /,
    ],
  ];
  for (const [what, args, code, message] of failures) {
    it(`fails on ${what} with one line on stderr and nothing on stdout`, async () => {
      const run = await runNotegate(args());
      assert.equal(run.code, code, run.stderr);
      assert.match(run.stderr, message);
      assert.equal(run.stdout, '');
    });
  }

  it('refuses bad flags with exit 2, and --help lists every option and the exit codes', async () => {
    const { io, output } = capturedIo();
    assert.equal(
      await runCommand(tokenCommand(io), ['--resource', 'ftp://x', '--trusted-issuer', 'http://i'], TEST_PROGRAM, io),
      2,
    );
    assert.match(output.stderr, /--resource: 'ftp:\/\/x' must use http or https/);
    assert.equal(await runCommand(tokenCommand(io), ['--help'], TEST_PROGRAM, io), 0);
    assertOptionsDocumented(output.stdout, [
      '--resource',
      '--trusted-issuer',
      '--workload-api',
      '--scope',
      '--json',
      '--timeout',
      '--audit-log',
    ]);
    for (const code of [0, 2, 3, 4, 5]) assert.match(output.stdout, new RegExp(`^  ${code}  `, 'm'));
  });
});
