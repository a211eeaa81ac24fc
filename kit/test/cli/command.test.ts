import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type Command, operatorLog, runCommand } from '../../src/cli/command.js';
import { UsageError } from '../../src/cli/usage-error.js';
import { capturedIo } from '../../src/testing/captured-io.js';

const PROGRAM = { name: 'tool', version: '1.0.0' };

function failing(error: Error): Command {
  return { name: 'tool run', usage: 'tool run', summary: 'Fails.', options: {}, run: () => Promise.reject(error) };
}

describe('runCommand', () => {
  it('shows the control characters of an error as escapes, keeping its line breaks', async () => {
    const { io, output } = capturedIo();
    const error = new Error('cannot read notes/\x1b]0;owned\x07\u202e.md:\n  \u009b2J');
    assert.equal(await runCommand(failing(error), [], PROGRAM, io), 1);
    assert.equal(output.stderr, 'tool run: cannot read notes/\\x1b]0;owned\\x07\\u202e.md:\n  \\x9b2J\n');
  });

  it('does the same for a usage error', async () => {
    const { io, output } = capturedIo();
    assert.equal(await runCommand(failing(new UsageError('--vault: \x1b[2J')), [], PROGRAM, io), 2);
    assert.equal(output.stderr, "tool run: --vault: \\x1b[2J\nTry 'tool run --help'.\n");
  });
});

describe('operatorLog', () => {
  it('writes one line per message, every control character in it shown as an escape', () => {
    const { io, output } = capturedIo();
    const log = operatorLog('serve', io);
    log('indexing v/a\nforged line\x1b[2J failed');
    log('ok');
    assert.equal(output.stderr, 'serve: indexing v/a\\x0aforged line\\x1b[2J failed\nserve: ok\n');
  });
});
