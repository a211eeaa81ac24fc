import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Command } from '../../src/cli/command.js';
import type { CommandEntry } from '../../src/cli/dispatch.js';
import { runSubcommand } from '../../src/cli/dispatch.js';
import { capturedIo } from '../../src/testing/captured-io.js';

const PROGRAM = { name: 'tool', version: '1.2.3' };

function commands(loaded: string[], ran: string[]): Map<string, CommandEntry> {
  const entry = (name: string, summary: string): CommandEntry => ({
    summary,
    load: async () => {
      loaded.push(name);
      const command: Command = {
        name: `tool ${name}`,
        usage: `tool ${name}`,
        summary: `The ${name} command.`,
        options: {},
        run: async () => {
          ran.push(name);
          return 0;
        },
      };
      return command;
    },
  });
  return new Map([
    ['one', entry('one', 'The first command.')],
    ['two', entry('two', 'The second command, whose summary is long enough that it has to wrap onto a second line.')],
  ]);
}

describe('runSubcommand', () => {
  it('loads only the module of the command it runs', async () => {
    const loaded: string[] = [];
    const ran: string[] = [];
    assert.equal(await runSubcommand(PROGRAM, commands(loaded, ran), ['two'], capturedIo(60).io), 0);
    assert.deepEqual([loaded, ran], [['two'], ['two']]);
  });

  it('prints the help from the summaries alone, wrapped and never cut', async () => {
    const loaded: string[] = [];
    const { io, output } = capturedIo(60);
    assert.equal(await runSubcommand(PROGRAM, commands(loaded, []), ['--help'], io), 0);
    assert.deepEqual(loaded, []);
    assert.match(output.stdout, /^ {2}one {2}The first command\.$/m);
    assert.match(
      output.stdout,
      /^ {2}two {2}The second command, whose summary is long enough that\n {7}it has to wrap onto a second line\.$/m,
    );
    for (const line of output.stdout.split('\n')) assert.ok(line.length <= 60, `line within 60 columns: ${line}`);
  });

  it('prints the version without loading any command, and for a subcommand', async () => {
    const loaded: string[] = [];
    const top = capturedIo(60);
    assert.equal(await runSubcommand(PROGRAM, commands(loaded, []), ['--version'], top.io), 0);
    assert.equal(top.output.stdout, 'tool 1.2.3\n');
    assert.deepEqual(loaded, []);
    const sub = capturedIo(60);
    assert.equal(await runSubcommand(PROGRAM, commands(loaded, []), ['one', '--version'], sub.io), 0);
    assert.equal(sub.output.stdout, 'tool 1.2.3\n');
  });

  it('exits 2 with the help for no command, and names an unknown command', async () => {
    const none = capturedIo(60);
    assert.equal(await runSubcommand(PROGRAM, commands([], []), [], none.io), 2);
    assert.match(none.output.stdout, /^Usage: tool <command>/);
    const unknown = capturedIo(60);
    assert.equal(await runSubcommand(PROGRAM, commands([], []), ['four'], unknown.io), 2);
    assert.match(unknown.output.stderr, /^tool: unknown command 'four'/);
  });
});
