import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { firstTerminalControl } from '@notegate/kit';
import { runCommand } from '@notegate/kit/cli';
import { reservePort } from '@notegate/kit/http';
import { assertOptionsDocumented, capturedIo, unwrapHelp } from '@notegate/kit/testing';
import { agentCommand } from '../../src/cli/agent-command.js';
import { type AgentStack, startAgentStack } from '../support/agent-stack.js';
import { Cleanups } from '../support/cleanups.js';
import { runNotegate, TEST_PROGRAM } from '../support/cli-process.js';
import { ScriptedServer } from '../support/scripted-server.js';

/** The command in this process (for start-up errors, which happen before anything is opened). */
async function inProcess(args: string[]) {
  const { io, output } = capturedIo();
  const code = await runCommand(agentCommand(io), args, TEST_PROGRAM, io);
  return { code, ...output };
}

/** stderr without the agent's audit lines (JSON), which go to stderr without --audit-log. */
function errorLines(stderr: string): string[] {
  return stderr.split('\n').filter((line) => line !== '' && !line.startsWith('{'));
}

describe('notegate agent (a child process against the real deployment)', () => {
  const cleanups = new Cleanups();
  let stack: AgentStack;
  before(async () => {
    stack = await startAgentStack(cleanups);
    // A file where a write's folder would be: the write passes screening and fails on disk (a tool error result).
    writeFileSync(join(stack.notesA.notesDir, 'blocker'), 'not a folder');
  });
  after(() => cleanups.run());

  const agent = (resource: string, ...args: string[]) => runNotegate(['agent', ...stack.targetArgs(resource), ...args]);

  it("prints a tool result's control and bidirectional characters as JSON escapes, the same JSON value", async () => {
    const title = 'Hostile \u009b2J\u202e title';
    const write = await agent(
      stack.notesA.resource,
      '--tool',
      'notes.write',
      '--arguments',
      JSON.stringify({ title, body: 'Paste \x1b]52;c;cm0gLXJmIH4=\x07 and \u009d0;owned\u009c.' }),
    );
    assert.equal(write.code, 0, write.stderr);
    const search = await agent(stack.notesA.resource, '--tool', 'notes.search', '--arguments', '{"query":"hostile"}');
    assert.equal(search.code, 0, search.stderr);
    assert.equal(firstTerminalControl(search.stdout.trimEnd()), undefined, search.stdout);
    const [hit] = JSON.parse(search.stdout).structuredContent.hits;
    assert.equal(hit.title, title);
    assert.match(hit.snippet, /\u009d0;owned\u009c/);
  });

  it('writes a note, then finds it, printing each tool result as JSON on stdout', async () => {
    const write = await agent(
      stack.notesA.resource,
      '--tool',
      'notes.write',
      '--arguments',
      JSON.stringify({ title: 'Agent note', body: 'Written through the CLI.' }),
    );
    assert.equal(write.code, 0, write.stderr);
    const written = JSON.parse(write.stdout);
    assert.equal(written.structuredContent.created, true);
    const search = await agent(stack.notesA.resource, '--tool', 'notes.search', '--arguments', '{"query":"cli"}');
    assert.equal(search.code, 0, search.stderr);
    assert.deepEqual(
      JSON.parse(search.stdout).structuredContent.hits.map((hit: { path: string }) => hit.path),
      [written.structuredContent.path],
    );
    assert.deepEqual(errorLines(search.stderr), []);
    const audit = JSON.parse(search.stderr.split('\n')[0] ?? '{}');
    assert.equal(audit.component, 'agent');
    assert.equal(audit.decision, 'allow');
  });

  it('lists the tools with every scope the server supports', async () => {
    const list = await agent(stack.notesA.resource);
    assert.equal(list.code, 0, list.stderr);
    assert.deepEqual(
      JSON.parse(list.stdout).tools.map((tool: { name: string }) => tool.name),
      ['notes.read', 'notes.search', 'notes.write'],
    );
  });

  it('--steal-token: the same token replayed against notes-b is refused with 401 invalid_token (exit 0)', async () => {
    const run = await agent(
      stack.notesA.resource,
      '--tool',
      'notes.search',
      '--arguments',
      '{"query":"x"}',
      '--steal-token',
      stack.notesB.resource,
    );
    assert.equal(run.code, 0, run.stderr);
    const [result, report, ...more] = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    assert.equal(more.length, 0);
    assert.ok(Array.isArray(result.structuredContent.hits));
    assert.equal(report.target, stack.notesB.resource);
    assert.equal(report.status, 401);
    assert.equal(report.error, 'invalid_token');
    assert.equal(report.accepted, false);
    assert.match(report.www_authenticate, /^Bearer error="invalid_token", .*resource_metadata=/);
    // Refused before its body was read: the OAuth error body, not a JSON-RPC error.
    assert.equal(report.body.error, 'invalid_token');
    assert.deepEqual(errorLines(run.stderr), [
      `notegate agent: steal_token: ${stack.notesB.resource} refused the replayed token: 401 invalid_token`,
    ]);
  });

  it('--steal-token: exits 6 when the other server accepts the token, 1 when it answers something else', async (t) => {
    const lenient = await ScriptedServer.start(t);
    lenient.json('/mcp', { jsonrpc: '2.0', id: 1, result: { tools: [] } });
    const accepted = await agent(stack.notesA.resource, '--steal-token', lenient.at('/mcp'));
    assert.equal(accepted.code, 6, accepted.stderr);
    assert.equal(JSON.parse(accepted.stdout.trim().split('\n')[1] ?? '{}').accepted, true);
    assert.match(
      errorLines(accepted.stderr)[0] ?? '',
      /^notegate agent: steal_token: replay_accepted: .* accepted a token minted for /,
    );
    assert.match(lenient.requests[0]?.body ?? '', /"method":"tools\/list"/);
    const other = await agent(stack.notesA.resource, '--steal-token', lenient.at('/elsewhere'));
    assert.equal(other.code, 1, other.stderr);
    assert.match(
      errorLines(other.stderr)[0] ?? '',
      /^notegate agent: steal_token: unexpected_answer: .* answered 404, not 401 invalid_token$/,
    );
  });

  const failures: [string, () => string[], number, RegExp][] = [
    [
      'issuer_refused (exit 3)',
      () => stack.targetArgs(stack.notesA.resource, { trustedIssuer: `${stack.issuer}/other` }),
      3,
      /^notegate agent: issuer_selection: issuer_refused: none of the issuers \["http:\/\/127\.0\.0\.1:\d+"\]/,
    ],
    [
      'a 403 insufficient_scope with the scope the call needs (exit 3)',
      () => [
        ...stack.targetArgs(stack.notesA.resource),
        '--tool',
        'notes.write',
        '--scope',
        'notes:read',
        '--arguments',
        '{"title":"t","body":"b"}',
      ],
      3,
      /^notegate agent: mcp_call: insufficient_scope: HTTP 403 from .* needs scope "notes:write"; WWW-Authenticate: Bearer error="insufficient_scope"/,
    ],
    [
      'a token endpoint 400 invalid_scope (exit 3)',
      () => [
        ...stack.targetArgs(stack.notesB.resource),
        '--tool',
        'notes.write',
        '--arguments',
        '{"title":"t","body":"b"}',
      ],
      3,
      /^notegate agent: token_request: invalid_scope: HTTP 400 from POST http:\/\/127\.0\.0\.1:\d+\/token /,
    ],
    [
      'a 401 from the server (exit 4)',
      () => [...stack.targetArgs(stack.notesC.resource), '--scope', 'notes:read'],
      4,
      /^notegate agent: mcp_call: invalid_token: HTTP 401 from .*WWW-Authenticate: Bearer error="invalid_token"/,
    ],
    [
      'a tool error result (exit 1)',
      () => [
        ...stack.targetArgs(stack.notesA.resource),
        '--tool',
        'notes.write',
        '--arguments',
        '{"title":"t","body":"b","path":"blocker/t.md"}',
      ],
      1,
      /^notegate agent: mcp_call: tool_error: the tool reported an error: "The note could not be written; nothing was changed"$/,
    ],
  ];
  for (const [what, args, code, message] of failures) {
    it(`fails with one line on stderr: ${what}`, async () => {
      const run = await runNotegate(['agent', ...args()]);
      assert.equal(run.code, code, run.stderr);
      const lines = errorLines(run.stderr);
      assert.equal(lines.length, 1, run.stderr);
      assert.match(lines[0] ?? '', message);
    });
  }

  it('fails with exit 5 when the resource is not reachable', async () => {
    const port = await reservePort();
    const run = await runNotegate(['agent', ...stack.targetArgs(`http://127.0.0.1:${port}/mcp`), '--timeout', '2']);
    assert.equal(run.code, 5, run.stderr);
    assert.match(
      run.stderr,
      /^notegate agent: protected_resource_metadata: connection_failed: GET http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/mcp failed: ECONNREFUSED\n$/,
    );
  });

  it('writes the audit lines to --audit-log instead of stderr', async () => {
    const { mkdtemp, readFile, rm } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dir = await mkdtemp(join(tmpdir(), 'agent-audit-'));
    cleanups.after(() => rm(dir, { recursive: true, force: true }));
    const path = join(dir, 'audit.log');
    const run = await runNotegate([
      'agent',
      ...stack.targetArgs(stack.notesA.resource),
      '--trusted-issuer',
      'http://127.0.0.1:1',
      '--audit-log',
      path,
    ]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stderr, '');
    assert.match(
      await readFile(path, 'utf8'),
      /^\{"timestamp":".*","component":"agent","spiffe_id":null,"tool":null,"decision":"allow","reason":"issuer_trusted: /,
    );
  });

  const usage: [string, string[], RegExp][] = [
    ['without --trusted-issuer', ['--resource', 'http://127.0.0.1:1/mcp'], /--trusted-issuer is required/],
    [
      'with a --trusted-issuer that has a query',
      ['--resource', 'http://127.0.0.1:1/mcp', '--trusted-issuer', 'http://a/t?x'],
      /--trusted-issuer: 'http:\/\/a\/t\?x' must not have a query/,
    ],
    [
      'with a --resource that has a fragment',
      ['--resource', 'http://127.0.0.1:1/mcp#x', '--trusted-issuer', 'http://a'],
      /--resource: .* must not have a fragment/,
    ],
    [
      'with --arguments that are not an object',
      [
        '--resource',
        'http://127.0.0.1:1/mcp',
        '--trusted-issuer',
        'http://a',
        '--tool',
        'notes.search',
        '--arguments',
        '[1]',
      ],
      /--arguments: must be a JSON object/,
    ],
    [
      'with --arguments but no --tool',
      ['--resource', 'http://127.0.0.1:1/mcp', '--trusted-issuer', 'http://a', '--arguments', '{"a":1}'],
      /--arguments needs --tool/,
    ],
    [
      'for an unknown tool without --scope',
      ['--resource', 'http://127.0.0.1:1/mcp', '--trusted-issuer', 'http://a', '--tool', 'x.y'],
      /--scope is required for tool 'x.y'/,
    ],
    [
      'with a malformed --scope',
      ['--resource', 'http://127.0.0.1:1/mcp', '--trusted-issuer', 'http://a', '--scope', 'a  b'],
      /--scope: 'a {2}b' is not RFC 6749 scope tokens/,
    ],
    [
      'with --steal-token naming the same resource',
      [
        '--resource',
        'http://127.0.0.1:1/mcp',
        '--trusted-issuer',
        'http://a',
        '--steal-token',
        'HTTP://127.0.0.1:1/mcp',
      ],
      /--steal-token: name another server/,
    ],
    [
      'with a bad --timeout',
      ['--resource', 'http://127.0.0.1:1/mcp', '--trusted-issuer', 'http://a', '--timeout', '0'],
      /--timeout: 0 is out of range/,
    ],
    [
      'with an unknown option',
      ['--resource', 'http://127.0.0.1:1/mcp', '--trusted-issuer', 'http://a', '--verbose'],
      /unknown option --verbose/,
    ],
  ];
  for (const [what, args, message] of usage) {
    it(`exits 2 ${what}`, async () => {
      const run = await inProcess([...args, '--workload-api', 'unix:///nonexistent.sock']);
      assert.equal(run.code, 2, run.stderr);
      assert.match(run.stderr, message);
    });
  }

  it('--help lists every option with its default, and the exit codes', async () => {
    const run = await inProcess(['--help']);
    assert.equal(run.code, 0);
    assertOptionsDocumented(run.stdout, [
      '--resource',
      '--trusted-issuer',
      '--workload-api',
      '--scope',
      '--tool',
      '--arguments',
      '--steal-token',
      '--timeout',
      '--audit-log',
    ]);
    assert.match(unwrapHelp(run.stdout), /default: SPIFFE_ENDPOINT_SOCKET/);
    for (const code of [0, 1, 2, 3, 4, 5, 6]) assert.match(run.stdout, new RegExp(`^  ${code}  `, 'm'));
  });
});
