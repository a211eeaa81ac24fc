import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { firstTerminalControl } from '@notegate/kit';
import { type Finished, unwrapHelp } from '@notegate/kit/testing';
import { cliPath, runNode } from '../../test-support/child.js';
import { E5_SMALL, MINILM, tempDir, type Workspace, workspace, writeConfig } from '../../test-support/fixtures.js';
import { testModelCache } from '../../test-support/test-model/test-model.js';

const NOTES = { 'a.md': '# A\n\nAlpha note.\n', 'ns/b.md': '# B\n\nBeta note.\n' };

function cli(
  t: TestContext,
  args: readonly string[],
  options: { cwd?: string; home?: string; cache?: string } = {},
): Promise<Finished> {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: options.home ?? '/nonexistent-home' };
  if (options.cache !== undefined) env.NOTEGATE_MODEL_CACHE = options.cache;
  return runNode(t, cliPath(), args, { cwd: options.cwd, env });
}

const run = (t: TestContext, ws: Workspace, args: readonly string[]) =>
  cli(t, ['index', '--config', ws.configPath, ...args], { home: ws.home, cache: testModelCache() });

describe('notegate-rag index', () => {
  it('lists every option with its default under --help', async (t) => {
    const { code, stdout } = await cli(t, ['index', '--help']);
    assert.equal(code, 0);
    for (const option of [
      '--config PATH',
      '--vault ID',
      '--rebuild',
      '--watch',
      '--json',
      '--quiet',
      '--offline',
      '--help',
    ]) {
      assert.ok(stdout.includes(option), option);
    }
    assert.match(
      unwrapHelp(stdout),
      /--config PATH +Vaults config file \(JSON\)\. \(default: NOTEGATE_CONFIG, else the per-user config \(~\/\.config\/notegate\/vaults\.json on Linux\) when it exists, else rag\/vaults\.json under the repository root when it exists\)/,
    );
    assert.match(unwrapHelp(stdout), /--rebuild +.*\(default: off\)/);
  });

  it('lists the subcommands, and exits 2 on an unknown one or an unknown option', async (t) => {
    const top = await cli(t, []);
    assert.equal(top.code, 2);
    assert.match(top.stdout, /Usage: notegate-rag <command>[\s\S]*index +Builds or updates/);
    assert.equal((await cli(t, ['serf'])).code, 2);
    const bad = await cli(t, ['index', '--rebiuld']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /^notegate-rag index: unknown option --rebiuld\nTry 'notegate-rag index --help'\.\n$/);
  });

  it('exits 2 on a config error, naming the file and the key', async (t) => {
    const ws = workspace(t, { v: NOTES });
    writeConfig(ws.configPath, { embed_model: 'intfloat/e5-tiny', vaults: [{ id: 'v', path: 'vaults/v' }] });
    const { code, stderr } = await run(t, ws, []);
    assert.equal(code, 2);
    assert.match(
      stderr,
      /vaults\.json:\n {2}embed_model: "intfloat\/e5-tiny" is not whitelisted \(allowed: intfloat\/multilingual-e5-small, /,
    );
  });

  it('exits 2 on a malformed exclude glob, naming its key and the glob, and writes no index', async (t) => {
    const ws = workspace(t, { v: NOTES });
    writeConfig(ws.configPath, { exclude: ['drafts/', 'a**'], vaults: [{ id: 'v', path: 'vaults/v' }] });
    const { code, stderr } = await run(t, ws, []);
    assert.equal(code, 2);
    assert.match(
      stderr,
      /vaults\.json:\n {2}exclude\[1\]: "a\*\*": \*\* must be a whole path segment \(a\/\*\*\/b\)$/m,
    );
    assert.equal(existsSync(path.join(ws.root, '.notegate')), false);
  });

  it('exits 2 on a vault inside the iCloud container under HOME, naming the diode policy', async (t) => {
    const ws = workspace(t, { v: NOTES });
    const personal = path.join(ws.home, 'Library', 'Mobile Documents', 'iCloud~md~obsidian', 'Documents', 'Me');
    mkdirSync(personal, { recursive: true });
    writeConfig(ws.configPath, { allowed_roots: ['.', ws.home], vaults: [{ id: 'me', path: personal }] });
    const { code, stderr } = await run(t, ws, []);
    assert.equal(code, 2);
    assert.match(
      stderr,
      /vaults\[0\]\.path: diode policy: .*Mobile Documents\/iCloud~md~obsidian\/Documents\/Me is inside the iCloud Drive container/,
    );
  });

  it('indexes, prints a summary for people or JSON for scripts, and refuses --vault outside the config', async (t) => {
    const ws = workspace(t, { v: NOTES });
    const first = await run(t, ws, ['--json', '--quiet']);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(first.stderr, '');
    const summary = JSON.parse(first.stdout);
    assert.deepEqual(
      [
        summary.new,
        summary.updated,
        summary.unchanged,
        summary.removed,
        summary.skipped,
        summary.failed,
        summary.model,
      ],
      [2, 0, 0, 0, [], [], MINILM],
    );
    assert.equal(summary.index_path, ws.config.indexPath);
    const second = await run(t, ws, []);
    assert.equal(second.code, 0);
    assert.match(
      second.stdout,
      /^v: 0 new, 0 updated, 2 unchanged, 0 removed, 0 skipped, 0 failed \(0 chunks embedded in [\d.]+ s\)\nindex .*index\.sqlite \(sentence-transformers\/all-MiniLM-L6-v2, full-text words\+trigram\)\n$/,
    );
    assert.match(second.stderr, /v: 2 markdown files\n2 unchanged, 0 removed, 0 to check\n/);
    const unknown = await run(t, ws, ['--vault', 'nope']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /--vault: 'nope' is not in the config \(allowed: v\)/);
    const partialRebuild = await run(t, ws, ['--rebuild', '--vault', 'v']);
    assert.equal(partialRebuild.code, 2);
    assert.match(partialRebuild.stderr, /--rebuild rebuilds the whole index; it cannot be combined with --vault/);
  });

  it('shows the control characters of file names as escapes in the summary; --json keeps them exact but escaped', async (t) => {
    // A file name is anyone's who can write into the vault: here one that clears the screen and sets the title.
    const name = 'bad\x1b[2J\x1b]0;owned\x07\u009b\u202e.md';
    const ws = workspace(t, { v: { ...NOTES, [name]: Buffer.from([0x23, 0x20, 0xff, 0xfe]) } }, 'none');
    const text = await run(t, ws, ['--quiet']);
    assert.equal(text.code, 0, text.stderr);
    assert.equal(firstTerminalControl(text.stdout.replaceAll('\n', '')), undefined, JSON.stringify(text.stdout));
    assert.match(text.stdout, /\n {2}v\/bad\\x1b\[2J\\x1b\]0;owned\\x07\\x9b\\u202e\.md: not_utf8 /);
    const json = await run(t, ws, ['--quiet', '--json', '--rebuild']);
    assert.equal(firstTerminalControl(json.stdout.replaceAll('\n', '')), undefined, json.stdout);
    assert.deepEqual(
      (JSON.parse(json.stdout) as { skipped: { path: string }[] }).skipped.map((skipped) => skipped.path),
      [name],
    );
  });

  it('refuses an index built with another model with exit 2 naming --rebuild, and --rebuild fixes it', async (t) => {
    const ws = workspace(t, { v: NOTES });
    assert.equal((await run(t, ws, ['--quiet'])).code, 0);
    writeConfig(ws.configPath, { embed_model: E5_SMALL, vaults: [{ id: 'v', path: 'vaults/v' }] });
    const refused = await run(t, ws, ['--quiet']);
    assert.equal(refused.code, 2);
    assert.match(
      refused.stderr,
      /built with sentence-transformers\/all-MiniLM-L6-v2 .* run 'notegate-rag index --rebuild'/,
    );
    const rebuilt = await run(t, ws, ['--quiet', '--rebuild', '--json']);
    assert.equal(rebuilt.code, 0, rebuilt.stderr);
    assert.deepEqual([JSON.parse(rebuilt.stdout).new, JSON.parse(rebuilt.stdout).rebuilt], [2, true]);
  });

  it('offline with an empty cache, exits 1 saying which files to place where', async (t) => {
    const ws = workspace(t, { v: NOTES });
    const cache = tempDir(t);
    const { code, stderr } = await cli(t, ['index', '--config', ws.configPath, '--offline'], { home: ws.home, cache });
    assert.equal(code, 1);
    assert.match(stderr, /model sentence-transformers\/all-MiniLM-L6-v2 is not in the model cache/);
    assert.ok(stderr.includes(path.join(cache, 'Xenova', 'all-MiniLM-L6-v2', 'onnx', 'model_quantized.onnx')));
  });

  it('reads .env in the working directory and finds rag/vaults.json from the repository root', async (t) => {
    const ws = workspace(t, { v: NOTES });
    const cwd = path.join(ws.root, 'some', 'folder');
    mkdirSync(cwd, { recursive: true });
    writeFileSync(path.join(cwd, '.env'), `NOTEGATE_MODEL_CACHE=${testModelCache()}\n`);
    const { code, stdout, stderr } = await cli(t, ['index', '--json', '--quiet'], { cwd, home: ws.home });
    assert.equal(code, 0, stderr);
    assert.equal(JSON.parse(stdout).new, 2);
  });
});
