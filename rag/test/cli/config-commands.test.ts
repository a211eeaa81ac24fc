import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { firstTerminalControl } from '@notegate/kit';
import { assertOptionsDocumented, type Finished } from '@notegate/kit/testing';
import { cliPath, runNode } from '../../test-support/child.js';
import { E5_SMALL, tempDir } from '../../test-support/fixtures.js';
import { testModelCache } from '../../test-support/test-model/test-model.js';

/**
 * A user's machine: a home folder with no config and no model cache, folders of notes outside any
 * repository, and `notegate-rag` run from a folder of their choice.
 */
function machine(t: TestContext) {
  const base = tempDir(t);
  const home = path.join(base, 'home');
  mkdirSync(home);
  const folder = (name: string, files: Readonly<Record<string, string>> = { 'a.md': '# A\n\nalpha\n' }) => {
    const dir = path.join(base, name);
    mkdirSync(dir, { recursive: true });
    for (const [file, text] of Object.entries(files)) writeFileSync(path.join(dir, file), text);
    return dir;
  };
  const userConfig = path.join(home, '.config', 'notegate', 'vaults.json');
  const cli = (args: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<Finished> =>
    runNode(t, cliPath(), args, {
      cwd: options.cwd ?? base,
      env: { PATH: process.env.PATH, HOME: home, ...options.env },
    });
  return { base, home, folder, userConfig, cli };
}

/** The file's bytes and mtime: a refused edit must leave both as they were. */
function fileState(file: string) {
  return { text: readFileSync(file, 'utf8'), mtimeMs: statSync(file).mtimeMs };
}

describe('notegate-rag init, add, remove', () => {
  it('documents every option of init, add, remove, status and mcp with its default', async (t) => {
    const m = machine(t);
    const table: [string, string[]][] = [
      ['init', ['--config']],
      ['add', ['--config', '--id']],
      ['remove', ['--config']],
      ['status', ['--config', '--json']],
      ['mcp', ['--config', '--allow-write', '--print-config']],
    ];
    for (const [command, options] of table) {
      const help = await m.cli([command, '--help']);
      assert.equal(help.code, 0, command);
      assertOptionsDocumented(help.stdout, options);
    }
  });

  it('init writes the per-user config for the folders, lexical-only without a model, and index finds it anywhere', async (t) => {
    const m = machine(t);
    const notes = m.folder('My Notes', { 'plan.md': '# Plan\n\nrotate the keys\n' });
    const work = m.folder('work');
    const init = await m.cli(['init', notes, 'work']);
    assert.equal(init.code, 0, init.stderr);
    assert.match(init.stdout, /^wrote .*home\/\.config\/notegate\/vaults\.json \(the per-user config\)\n/);
    assert.match(init.stdout, /model: none, a lexical-only index .* To add vectors later, set "embed_model"/);
    assert.deepEqual(JSON.parse(readFileSync(m.userConfig, 'utf8')), {
      embed_model: 'none',
      allowed_roots: [notes, work],
      index_path: path.join(m.home, '.local', 'share', 'notegate', 'index.sqlite'),
      vaults: [
        { id: 'my-notes', path: notes },
        { id: 'work', path: work },
      ],
    });
    assert.equal(statSync(m.userConfig).mode & 0o777, 0o600);
    assert.equal(statSync(path.dirname(m.userConfig)).mode & 0o777, 0o700);
    const index = await m.cli(['index', '--quiet'], { cwd: work });
    assert.equal(index.code, 0, index.stderr);
    assert.match(index.stdout, /^my-notes, work: 2 new/);
    const search = await m.cli(['search', 'rotate'], { cwd: m.home });
    assert.match(search.stdout, /Plan +my-notes\/plan\.md:3-3/);
  });

  it('init in a clone with its demo config makes the per-user config, which every command then finds first', async (t) => {
    const m = machine(t);
    const clone = m.folder('clone', { 'package.json': '{"workspaces":["rag"]}' });
    m.folder(path.join('clone', 'demo'), { 'demo.md': '# Demo\n\nrotate the demo keys\n' });
    const demoConfig = path.join(clone, 'rag', 'vaults.json');
    mkdirSync(path.dirname(demoConfig));
    writeFileSync(
      demoConfig,
      JSON.stringify({
        embed_model: 'none',
        allowed_roots: ['.'],
        index_path: '.notegate/index.sqlite',
        vaults: [{ id: 'demo', path: 'demo' }],
      }),
    );
    const before = fileState(demoConfig);
    const statusBefore = await m.cli(['status'], { cwd: clone });
    assert.match(statusBefore.stdout, /rag\/vaults\.json \(the repository's config\)/);

    const notes = m.folder('notes', { 'plan.md': '# Plan\n\nrotate the keys\n' });
    const init = await m.cli(['init', notes], { cwd: clone });
    assert.equal(init.code, 0, init.stderr);
    assert.match(init.stdout, /^wrote .*home\/\.config\/notegate\/vaults\.json \(the per-user config\)\n/);
    assert.deepEqual(fileState(demoConfig), before, "the repository's config is left as it was");
    const index = await m.cli(['index', '--quiet'], { cwd: clone });
    assert.equal(index.code, 0, index.stderr);
    assert.match(index.stdout, /^notes: 1 new/);
    const search = await m.cli(['search', 'rotate'], { cwd: clone });
    assert.match(search.stdout, /Plan +notes\/plan\.md:3-3/);
    assert.doesNotMatch(search.stdout, /demo\.md/);
    assert.equal((await m.cli(['index', '--quiet', '--config', demoConfig], { cwd: clone })).code, 0);
    const demo = await m.cli(['search', 'rotate', '--config', demoConfig], { cwd: clone });
    assert.equal(demo.code, 0, demo.stderr);
    assert.match(demo.stdout, /demo\/demo\.md/, 'the demo config is still there for whoever names it');
  });

  it('init picks the default model when its files are in the cache, and takes the working directory', async (t) => {
    const m = machine(t);
    const notes = m.folder('notes');
    const init = await m.cli(['init'], { cwd: notes, env: { NOTEGATE_MODEL_CACHE: testModelCache() } });
    assert.equal(init.code, 0, init.stderr);
    const config = JSON.parse(readFileSync(m.userConfig, 'utf8'));
    assert.equal(config.embed_model, E5_SMALL);
    assert.deepEqual(config.vaults, [{ id: 'notes', path: notes }]);
  });

  it('init writes where NOTEGATE_CONFIG or --config says, with the index beside it', async (t) => {
    const m = machine(t);
    m.folder('notes');
    const file = path.join(m.base, 'cfg', 'team.json');
    const init = await m.cli(['init', 'notes'], { env: { NOTEGATE_CONFIG: file } });
    assert.equal(init.code, 0, init.stderr);
    assert.match(init.stdout, /team\.json \(from NOTEGATE_CONFIG\)/);
    assert.equal(
      JSON.parse(readFileSync(file, 'utf8')).index_path,
      path.join(m.base, 'cfg', '.notegate', 'team.sqlite'),
    );
    const again = await m.cli(['init', 'notes', '--config', 'cfg/team.json']);
    assert.equal(again.code, 2);
    assert.match(
      again.stderr,
      /a config exists at .*team\.json \(from --config\): add a folder to it with 'notegate-rag add DIR'/,
    );
  });

  it('init refuses the personal cloud drive, a missing folder, a clashing id and the home folder, writing nothing', async (t) => {
    const m = machine(t);
    m.folder('a/notes');
    m.folder('b/notes');
    const icloud = m.folder('home/Library/Mobile Documents/iCloud~md~obsidian/Documents/Me');
    const cases: [string[], RegExp][] = [
      [[icloud], /diode policy: .*Documents\/Me is inside the iCloud Drive container/],
      [['a/notes', 'missing'], /missing: folder .*missing does not exist/],
      [['a/notes', 'b/notes'], /vault id 'notes' would name both .*a\/notes and .*b\/notes/],
      [[m.home], /holds your home folder/],
    ];
    for (const [args, message] of cases) {
      const result = await m.cli(['init', ...args]);
      assert.equal(result.code, 2, args.join(' '));
      assert.match(result.stderr, message);
      assert.equal(result.stdout, '');
    }
    assert.equal(statSync(path.dirname(m.userConfig), { throwIfNoEntry: false }), undefined, 'nothing written');
  });

  it('add and remove edit the config, and refuse bad input naming the item, writing nothing', async (t) => {
    const m = machine(t);
    const notes = m.folder('notes');
    const other = m.folder('x/notes');
    const icloud = m.folder('home/Library/CloudStorage/iCloudDrive/notes');
    assert.equal((await m.cli(['init', 'notes'])).code, 0);
    const before = fileState(m.userConfig);
    const refusals: [string[], RegExp][] = [
      [['add', 'x/notes'], /vault id 'notes' is taken by .*\/notes; choose another with --id/],
      [['add', 'notes', '--id', 'again'], /is already the vault 'notes'/],
      [['add', 'x/notes', '--id', 'Bad Id'], /--id: 'Bad Id' is not a valid vault id/],
      [['add', icloud], /diode policy: .*CloudStorage\/iCloudDrive\/notes is inside the iCloud Drive container/],
      [['add', 'nowhere'], /nowhere: folder .*nowhere does not exist/],
      [['add'], /DIR: give exactly one folder/],
      [['remove', 'work'], /no vault 'work' in .*vaults\.json \(vaults: notes\)/],
      [['remove', 'notes'], /'notes' is the only vault of .*, and a config needs one/],
    ];
    for (const [args, message] of refusals) {
      const result = await m.cli(args);
      assert.equal(result.code, 2, args.join(' '));
      assert.match(result.stderr, message);
    }
    assert.deepEqual(fileState(m.userConfig), before, 'nothing written');

    const added = await m.cli(['add', 'x/notes', '--id', 'x-notes']);
    assert.equal(added.code, 0, added.stderr);
    assert.match(added.stdout, /^added vault x-notes: .*x\/notes to .*vaults\.json/);
    const config = JSON.parse(readFileSync(m.userConfig, 'utf8'));
    assert.deepEqual(config.allowed_roots, [notes, other]);
    const removed = await m.cli(['remove', 'notes']);
    assert.equal(removed.code, 0, removed.stderr);
    assert.deepEqual(JSON.parse(readFileSync(m.userConfig, 'utf8')), {
      ...config,
      allowed_roots: [other],
      vaults: [{ id: 'x-notes', path: other }],
    });
  });

  it('status shows the config, the index, the model and what changed since, for people and as JSON', async (t) => {
    const m = machine(t);
    const notes = m.folder('notes', { 'a.md': '# A\n\nalpha\n', 'b.md': '# B\n\nbeta\n' });
    assert.equal((await m.cli(['init', 'notes'])).code, 0);
    const fresh = await m.cli(['status']);
    assert.equal(fresh.code, 0, fresh.stderr);
    assert.match(
      fresh.stdout,
      /^config {2}.*vaults\.json \(the per-user config\)\nindex {3}.*index\.sqlite\n {8}not built yet: run 'notegate-rag index'\n/,
    );
    assert.match(fresh.stdout, /\nmodel {3}none: a lexical-only index, lexical search\. To add vectors later/);
    assert.match(fresh.stdout, /\n {2}notes +0 +0 +2 new +.*\/notes\n/);
    assert.equal((await m.cli(['index', '--quiet'])).code, 0);
    writeFileSync(path.join(notes, 'c.md'), '# C\n\ngamma\n');
    const later = await m.cli(['status']);
    assert.match(
      later.stdout,
      /\n {8}2 files, 2 chunks; full-text words\+trigram, no vectors\n {8}last index run \d{4}-.* ago\)\n {8}1 file changed since: run 'notegate-rag index'\n/,
    );
    const json = JSON.parse((await m.cli(['status', '--json'])).stdout);
    assert.equal(json.config_source, 'user');
    assert.equal(json.index.state, 'ready');
    assert.deepEqual(json.vaults, [
      { id: 'notes', path: notes, files: 2, chunks: 2, changed: { new: 1, modified: 0, deleted: 0 } },
    ]);
  });

  it('shows the controls of a folder name as escapes in add, status and mcp --print-config; JSON keeps the exact path', async (t) => {
    const m = machine(t);
    assert.equal((await m.cli(['init', m.folder('notes')])).code, 0);
    // A folder named by someone else (a cloned repository): it clears the screen and sets the window title.
    const hostile = m.folder('shared\x1b[2J\x1b]0;owned\x07\u202e');
    const shown = 'shared\\x1b[2J\\x1b]0;owned\\x07\\u202e';
    const add = await m.cli(['add', hostile, '--id', 'shared']);
    assert.equal(add.code, 0, add.stderr);
    const status = await m.cli(['status']);
    const hostileConfig = path.join(hostile, 'vaults.json');
    assert.equal((await m.cli(['init', '--config', hostileConfig, path.join(m.base, 'notes')])).code, 0);
    const config = await m.cli(['mcp', '--print-config', 'claude', '--config', hostileConfig]);
    assert.equal(config.code, 0, config.stderr);
    for (const [what, output] of [
      ['add', add.stdout],
      ['status', status.stdout],
      ['mcp --print-config', config.stdout + config.stderr],
    ] as const) {
      assert.equal(firstTerminalControl(output.replaceAll('\n', '')), undefined, `${what}: ${JSON.stringify(output)}`);
    }
    assert.ok(add.stdout.includes(shown), add.stdout);
    assert.match(status.stdout, new RegExp(`\\n {2}shared +0 +0 +1 new +.*${shown.replace(/[\\[\]]/g, '\\$&')}\\n`));
    const statusJson = (await m.cli(['status', '--json'])).stdout;
    assert.equal(firstTerminalControl(statusJson.replaceAll('\n', '')), undefined, statusJson);
    assert.deepEqual(
      JSON.parse(statusJson).vaults.map((vault: { path: string }) => vault.path),
      [path.join(m.base, 'notes'), hostile],
    );
    assert.deepEqual(JSON.parse(config.stdout).mcpServers.notes.args.slice(-2), ['--config', hostileConfig]);
    // The command to paste holds the same JSON value: the controls as JSON escapes.
    assert.ok(config.stderr.includes('shared\\u001b[2J\\u001b]0;owned\\u0007\\u202e'), config.stderr);
  });

  it('says how to make a config when there is none', async (t) => {
    const m = machine(t);
    const result = await m.cli(['index']);
    assert.equal(result.code, 2);
    assert.match(
      result.stderr,
      /^notegate-rag index: no config at .*\.config\/notegate\/vaults\.json \(the per-user config\): make one with 'notegate-rag init DIR'/,
    );
  });
});
