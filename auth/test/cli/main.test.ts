import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { runNotegate } from '../support/cli-process.js';

const VERSION: unknown = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')).version;

describe('notegate', () => {
  it('lists its seven commands, each with a whole summary', async () => {
    const { code, stdout } = await runNotegate(['--help']);
    assert.equal(code, 0);
    const commands = stdout.split('\n\n')[1] ?? '';
    const entries = commands.split(/\n(?= {2}\S)/).slice(1);
    assert.deepEqual(
      entries.map((entry) => entry.trim().split(/\s+/)[0]),
      ['identity-provider', 'authz', 'notes-server', 'agent', 'proxy', 'token', 'demo'],
    );
    for (const entry of entries) assert.match(entry, /\.$/, `a whole sentence: ${entry}`);
  });

  it('prints its package version for --version, also after a command', async () => {
    assert.equal(typeof VERSION, 'string');
    for (const args of [['--version'], ['authz', '--version']]) {
      const { code, stdout } = await runNotegate(args);
      assert.deepEqual({ code, stdout }, { code: 0, stdout: `notegate ${VERSION}\n` });
    }
  });
});
