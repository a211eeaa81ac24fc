import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runCommand } from '@notegate/kit/cli';
import { assertOptionsDocumented, capturedIo, spawnNode, waitFor } from '@notegate/kit/testing';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { mcpSvidStdioCommand } from '../../src/cli/mcp-svid-stdio-command.js';
import { type AgentStack, startAgentStack } from '../support/agent-stack.js';
import { Cleanups } from '../support/cleanups.js';
import { TEST_PROGRAM } from '../support/cli-process.js';
import { type ChildRecord, WRAPPER_CHILD } from '../support/wrapper-child.js';

const WRAPPER_MAIN = fileURLToPath(new URL('../../src/cli/mcp-svid-stdio.js', import.meta.url));

describe('mcp-svid-stdio (a child process against the real deployment)', () => {
  const cleanups = new Cleanups();
  let stack: AgentStack;
  let root: string;
  before(async () => {
    stack = await startAgentStack(cleanups);
  });
  after(() => cleanups.run());

  /**
   * Runs the wrapper with TMPDIR pointing at a fresh directory, which must be empty again afterwards;
   * `command` is built once that directory exists (the child records into it).
   */
  async function startWrapper(options: string[], command: () => string[], issuer = stack.issuer) {
    root = await mkdtemp(join(tmpdir(), 'mcp-svid-stdio-test-'));
    cleanups.after(() => rm(root, { recursive: true, force: true }));
    const tokenOptions = stack.targetArgs(stack.notesA.resource, { trustedIssuer: issuer });
    return spawnNode(cleanups, [WRAPPER_MAIN, ...tokenOptions, ...options, '--', ...command()], {
      ...process.env,
      TMPDIR: root,
    });
  }

  const recordPath = () => join(root, 'record.json');
  const record = (): ChildRecord => JSON.parse(readFileSync(recordPath(), 'utf8'));
  const childOf = (mode: string[]) => () => [process.execPath, '-e', WRAPPER_CHILD, recordPath(), ...mode];
  const leftovers = () => readdirSync(root).filter((name) => name !== 'record.json');

  it('gives the child a 0600 file holding the access token for the resource, no newline, and removes it', async () => {
    const run = await startWrapper(['--audit-log', '/dev/null'], childOf(['exit', '0']));
    assert.equal(await run.exited, 0, run.output.stderr);
    const { mode, token, path } = record();
    assert.equal(mode, '600');
    assert.doesNotMatch(token, /\s/);
    assert.equal(decodeProtectedHeader(token).typ, 'at+jwt');
    assert.equal(decodeJwt(token).aud, stack.notesA.resource);
    assert.equal(decodeJwt(token).scope, 'notes:read notes:write');
    assert.equal(existsSync(path), false);
    assert.deepEqual(leftovers(), []);
    assert.equal(run.output.stdout, '');
    assert.equal(run.output.stderr, '');
  });

  it('passes the child its stdout untouched (the MCP stream) and adds nothing to it', async () => {
    const run = await startWrapper(['--scope', 'notes:read'], () => [
      process.execPath,
      '-e',
      'process.stdout.write("{\\"jsonrpc\\":\\"2.0\\"}")',
    ]);
    assert.equal(await run.exited, 0);
    assert.equal(run.output.stdout, '{"jsonrpc":"2.0"}');
  });

  it('forwards SIGTERM to the child and exits with its exit code', async () => {
    const run = await startWrapper([], childOf(['trap', '42']));
    await waitFor('the child', () => existsSync(recordPath()));
    run.child.kill('SIGTERM');
    assert.equal(await run.exited, 42, run.output.stderr);
    assert.equal(record().signal, 'SIGTERM');
    assert.deepEqual(leftovers(), []);
  });

  it('exits with 128 + 15 when the forwarded SIGTERM kills the child', async () => {
    const run = await startWrapper([], childOf(['wait']));
    await waitFor('the child', () => existsSync(recordPath()));
    run.child.kill('SIGTERM');
    assert.equal(await run.exited, 143, run.output.stderr);
    assert.deepEqual(leftovers(), []);
  });

  it('writes to --token-file when given and names it in --token-file-env; exported tokens come with a warning', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mcp-svid-stdio-given-'));
    cleanups.after(() => rm(dir, { recursive: true, force: true }));
    const path = join(dir, 'token');
    const run = await startWrapper(
      ['--token-file', path, '--export-token-env', 'MCP_ACCESS_TOKEN', '--audit-log', '/dev/null'],
      childOf(['exit', '3']),
    );
    assert.equal(await run.exited, 3);
    assert.equal(record().path, path);
    assert.equal(record().exported, record().token);
    assert.deepEqual(readdirSync(dir), [], 'the given file is removed, its directory kept');
    assert.match(
      run.output.stderr,
      /^mcp-svid-stdio: warning: --export-token-env MCP_ACCESS_TOKEN puts the access token in the child's environment.*never refreshed/,
    );
  });

  it('does not start the command when the issuer is refused: exit 3, one line, nothing left behind', async () => {
    const run = await startWrapper(['--audit-log', '/dev/null'], childOf(['exit', '0']), `${stack.issuer}/x`);
    assert.equal(await run.exited, 3, run.output.stderr);
    assert.match(
      run.output.stderr,
      /^mcp-svid-stdio: cannot get an access token: issuer_selection: issuer_refused: [^\n]*\n$/,
    );
    assert.equal(existsSync(recordPath()), false, 'the command never ran');
    assert.deepEqual(leftovers(), []);
  });

  it('exits 2 without a command after --, and --help lists every option with its default', async () => {
    const { io, output } = capturedIo();
    const options = [
      '--resource',
      'http://127.0.0.1:1/mcp',
      '--trusted-issuer',
      'http://a',
      '--workload-api',
      'unix:///x.sock',
    ];
    assert.equal(await runCommand(mcpSvidStdioCommand(io), [...options, '--'], TEST_PROGRAM, io), 2);
    assert.match(output.stderr, /no command: put the stdio MCP server to run after --/);
    assert.equal(
      await runCommand(mcpSvidStdioCommand(io), [...options, '--token-file-env', '1X', '--', 'x'], TEST_PROGRAM, io),
      2,
    );
    assert.match(output.stderr, /--token-file-env: '1X' is not an environment variable name/);
    assert.equal(await runCommand(mcpSvidStdioCommand(io), ['--help'], TEST_PROGRAM, io), 0);
    assertOptionsDocumented(output.stdout, [
      '--resource',
      '--trusted-issuer',
      '--workload-api',
      '--scope',
      '--token-file',
      '--token-file-env',
      '--export-token-env',
      '--grace-period',
      '--timeout',
      '--audit-log',
    ]);
    assert.match(output.stdout, /default: MCP_ACCESS_TOKEN_FILE/);
  });
});
