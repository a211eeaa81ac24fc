import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runCommand } from '@notegate/kit/cli';
import { assertOptionsDocumented, capturedIo, unwrapHelp } from '@notegate/kit/testing';
import { proxyCommand } from '../../src/cli/proxy-command.js';
import { TEST_PROGRAM } from '../support/cli-process.js';

describe('notegate proxy options', () => {
  const run = async (args: string[]) => {
    const { io, output } = capturedIo();
    const code = await runCommand(proxyCommand(io), args, TEST_PROGRAM, io);
    return { code, ...output };
  };
  const target = [
    '--resource',
    'http://127.0.0.1:8081/mcp',
    '--trusted-issuer',
    'http://127.0.0.1:8080',
    '--workload-api',
    'unix:///nonexistent.sock',
  ];

  const usage: [string, string[], RegExp][] = [
    ['without --resource', ['--trusted-issuer', 'http://127.0.0.1:8080'], /--resource/],
    ['without --trusted-issuer', ['--resource', 'http://127.0.0.1:8081/mcp'], /--trusted-issuer/],
    [
      'for a resource with a query',
      ['--resource', 'http://h/mcp?x=1', '--trusted-issuer', 'http://i'],
      /--resource: .*must not have a query/,
    ],
    ['for a malformed scope', [...target, '--scope', 'a  b'], /--scope: 'a {2}b' is not RFC 6749 scope tokens/],
    ['for a timeout out of range', [...target, '--timeout', '0'], /--timeout/],
    [
      'for a Workload API address that is not unix:// or tcp://',
      [...target, '--workload-api', 'http://x'],
      /--workload-api/,
    ],
  ];
  for (const [what, args, message] of usage) {
    it(`exits 2 ${what}, naming the flag`, async () => {
      const result = await run(args);
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, message);
      assert.equal(result.stdout, '', 'stdout belongs to the protocol');
    });
  }

  it('--help lists every option with its default', async () => {
    const result = await run(['--help']);
    assert.equal(result.code, 0);
    assertOptionsDocumented(result.stdout, [
      '--resource',
      '--trusted-issuer',
      '--workload-api',
      '--scope',
      '--timeout',
      '--audit-log',
    ]);
    assert.match(
      unwrapHelp(result.stdout),
      /--scope "A B" .*\(default: every scope in the server's scopes_supported\)/,
    );
  });
});
