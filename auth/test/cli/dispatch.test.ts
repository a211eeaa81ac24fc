import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Command } from '../../src/cli/command.js';
import type { CommandEntry } from '../../src/cli/dispatch.js';
import { runSubcommand } from '../../src/cli/dispatch.js';
import { capturedIo, runNotegate } from '../support/cli-process.js';

function fakeCommand(name: string, ran: string[]): Command {
  return {
    name: `tool ${name}`,
    usage: `tool ${name}`,
    summary: `The ${name} command.\nMore text.`,
    options: {},
    run: async () => {
      ran.push(name);
      return 0;
    },
  };
}

describe('runSubcommand', () => {
  it('loads only the module of the command it runs', async () => {
    const loaded: string[] = [];
    const ran: string[] = [];
    const lazy =
      (name: string): CommandEntry =>
      async () => {
        loaded.push(name);
        return fakeCommand(name, ran);
      };
    const commands = new Map([
      ['one', lazy('one')],
      ['two', lazy('two')],
      ['three', fakeCommand('three', ran)],
    ]);
    const { io } = capturedIo();
    assert.equal(await runSubcommand('tool', commands, ['two'], io), 0);
    assert.deepEqual([loaded, ran], [['two'], ['two']]);
  });

  it('lists every command with the first line of its summary; an unknown command exits 2', async () => {
    const commands = new Map<string, CommandEntry>([
      ['one', async () => fakeCommand('one', [])],
      ['three', fakeCommand('three', [])],
    ]);
    const help = capturedIo();
    assert.equal(await runSubcommand('tool', commands, ['--help'], help.io), 0);
    assert.match(help.output.stdout, /^ {2}one {17}The one command\.$/m);
    assert.match(help.output.stdout, /^ {2}three {15}The three command\.$/m);
    const unknown = capturedIo();
    assert.equal(await runSubcommand('tool', commands, ['four'], unknown.io), 2);
    assert.match(unknown.output.stderr, /^tool: unknown command 'four'/);
  });

  it('notegate lists its five commands', async () => {
    const { code, stdout } = await runNotegate(['--help']);
    assert.equal(code, 0);
    for (const name of ['identity-provider', 'authz', 'notes-server', 'agent', 'demo']) {
      assert.match(stdout, new RegExp(`^ {2}${name} +\\S`, 'm'));
    }
  });
});
