import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it, type TestContext } from 'node:test';
import { firstTerminalControl, shellWords } from '@notegate/kit';
import { type Finished, runInGroup, unwrapHelp } from '@notegate/kit/testing';
import { cliPath, runNode } from '../../test-support/child.js';
import { MINILM, tempDir, type Workspace, workspace } from '../../test-support/fixtures.js';
import { testModelCache } from '../../test-support/test-model/test-model.js';

const NOTES = {
  'ops/keys.md':
    '# Keys\n\n## Rotation\n\nRotate the signing keys every ninety days.\n\n## Storage\n\nKeys live in the vault.\n',
  'readme.md': '# Readme\n\nAlpha release notes for DEC-0054.\n',
  'zh/db.md': '# 数据\n\n分布式数据库系统的设计与实现。\n',
};

function cli(t: TestContext, ws: Workspace, args: readonly string[], cache = testModelCache()): Promise<Finished> {
  const env = { PATH: process.env.PATH, HOME: ws.home, NOTEGATE_MODEL_CACHE: cache };
  return runNode(t, cliPath(), args, { env, cwd: ws.root });
}

/** A note with tags and markdown in its text. */
const TAGGED = {
  'recipes/eggs.md':
    '---\ntags: [recipe, project/kitchen]\n---\n# Eggs\n\nBoil the eggs for [seven minutes](https://example.org).\n',
};

async function indexed(t: TestContext, model: string, more: Record<string, string> = {}): Promise<Workspace> {
  const ws = workspace(t, { notes: { ...NOTES, ...more }, other: { 'x.md': '# X\n\nRotate nothing here.\n' } }, model);
  const { code, stderr } = await cli(t, ws, ['index', '--quiet']);
  assert.equal(code, 0, stderr);
  return ws;
}

describe('notegate-rag search', () => {
  it('lists every option with its default under --help', async (t) => {
    const ws = workspace(t, { notes: NOTES });
    const { code, stdout } = await cli(t, ws, ['search', '--help']);
    assert.equal(code, 0);
    const help = unwrapHelp(stdout);
    assert.match(help, /^Usage: notegate-rag search QUERY \[options\]/);
    for (const option of ['--config PATH', '--top N', '--mode MODE', '--vault ID', '--tag TAG', '--files', '--json'])
      assert.ok(help.includes(option), option);
    assert.match(
      help,
      /--mode MODE +hybrid, dense, lexical\. \(default: hybrid; lexical for an index without vectors \(embed_model none\)\)/,
    );
  });

  it('searches a lexical-only index end to end: readable hits, JSON hits, vector modes refused', async (t) => {
    const ws = await indexed(t, 'none');
    const text = await cli(t, ws, ['search', 'rotate', 'the', 'keys', '--top', '2']);
    assert.equal(text.code, 0, text.stderr);
    assert.equal(
      text.stdout,
      '1. Keys  notes/ops/keys.md:5-9\n   Rotation\n   Rotate the signing keys every ninety days. Storage Keys live in the vault.\n',
      'not a terminal: no colours',
    );
    const json = await cli(t, ws, ['search', 'DEC-0054', '--json', '--vault', 'notes']);
    assert.equal(json.code, 0, json.stderr);
    const { hits } = JSON.parse(json.stdout) as { hits: Record<string, unknown>[] };
    assert.deepEqual(
      hits.map((h) => [h.vault, h.path, h.line_start, h.dense_rank, h.lexical_rank]),
      [['notes', 'readme.md', 3, null, 1]],
    );
    assert.equal((await cli(t, ws, ['search', 'zyxwvut'])).stdout, 'no matches\n');
    const refused: [string[], RegExp][] = [
      [
        ['search', 'keys', '--mode', 'dense'],
        /--mode: "dense" needs vectors, and this index has no vectors \(embed_model: none\); use mode "lexical"/,
      ],
      [['search', 'keys', '--mode', 'fuzzy'], /--mode: must be one of hybrid, dense, lexical/],
      [['search', 'keys', '--vault', 'nope'], /--vault: unknown vault "nope" \(known: notes, other\)/],
      [['search', 'keys', '--top', '0'], /--top: must be an integer from 1 to 50/],
      [['search', 'keys', '--tag', 'two words'], /--tag: "two words" is not a tag: a tag has no spaces/],
      [['search', 'keys', '--top', 'ten'], /--top: must be an integer from 1 to 50/],
      [['search', 'x'.repeat(1001)], /QUERY: must be at most 1000 characters/],
      [['search', ' '], /QUERY: must be a non-empty string/],
      [['search'], /QUERY: give the search text/],
    ];
    for (const [args, message] of refused) {
      const { code, stderr } = await cli(t, ws, args);
      assert.equal(code, 2, args.join(' '));
      assert.match(stderr, message);
    }
  });

  it('searches an index with vectors: hybrid by default, lexical and dense on request', async (t) => {
    const ws = await indexed(t, MINILM);
    for (const mode of [[], ['--mode', 'lexical'], ['--mode', 'dense']]) {
      const { code, stdout, stderr } = await cli(t, ws, ['search', 'signing keys', '--json', ...mode]);
      assert.equal(code, 0, stderr);
      const { hits } = JSON.parse(stdout) as { hits: Record<string, unknown>[] };
      assert.ok(hits.length > 0, mode.join(' '));
      if (mode[1] === 'lexical') assert.ok(hits.every((h) => h.dense_rank === null));
      if (mode[1] === 'dense') assert.ok(hits.every((h) => h.lexical_rank === null));
      if (mode.length === 0) assert.equal(hits.find((h) => h.lexical_rank === 1)?.path, 'ops/keys.md');
    }
    // A lexical search loads no model: it works with the model's files gone, a hybrid one says which are missing.
    const emptyCache = tempDir(t);
    const lexical = await cli(t, ws, ['search', 'signing keys', '--mode', 'lexical'], emptyCache);
    assert.equal(lexical.code, 0, lexical.stderr);
    assert.match(lexical.stdout, /^1\. Keys {2}notes\/ops\/keys\.md/);
    const hybrid = await cli(t, ws, ['search', 'signing keys'], emptyCache);
    assert.equal(hybrid.code, 1);
    assert.match(hybrid.stderr, /is not in the model cache/);
  });

  it('shows the control and bidirectional characters of a note as escapes; --json keeps them exact but escaped', async (t) => {
    // A writer of notes aims at whoever searches: clear the screen, set the title, fill the clipboard (OSC 52).
    const hostile = {
      'keys\u009b2J\u202e.md':
        '# Keys\x1b]0;owned\x07\n\n## Rotation\x1b[2J\n\nRotate the keys \x1b]52;c;cm0gLXJmIH4=\x07 now \u009b31m \u2066x\u2069\x08.\n',
    };
    const ws = workspace(t, { notes: hostile }, 'none');
    assert.equal((await cli(t, ws, ['index', '--quiet'])).code, 0);
    const text = await cli(t, ws, ['search', 'rotate', 'keys']);
    assert.equal(text.code, 0, text.stderr);
    assert.equal(firstTerminalControl(text.stdout.replaceAll('\n', '')), undefined, JSON.stringify(text.stdout));
    assert.equal(
      text.stdout,
      '1. Keys\\x1b]0;owned\\x07  notes/keys\\x9b2J\\u202e.md:5-5\n' +
        '   Rotation\\x1b[2J\n' +
        '   Rotate the keys \\x1b]52;c;cm0gLXJmIH4=\\x07 now \\x9b31m \\u2066x\\u2069\\x08.\n',
    );
    const json = await cli(t, ws, ['search', 'rotate', 'keys', '--json']);
    assert.equal(firstTerminalControl(json.stdout.replaceAll('\n', '')), undefined, json.stdout);
    const [hit] = (JSON.parse(json.stdout) as { hits: Record<string, unknown>[] }).hits;
    assert.equal(hit?.title, 'Keys\x1b]0;owned\x07');
    assert.equal(hit?.path, 'keys\u009b2J\u202e.md');
    assert.equal(hit?.heading, 'Rotation\x1b[2J');
  });

  it('on a terminal (a pseudo-terminal, through script(1)) marks the terms in colour and still shows the controls as escapes', async (t) => {
    if (spawnSync('script', ['--version']).status !== 0) {
      t.skip('script(1) of util-linux is not installed');
      return;
    }
    const hostile = {
      'keys.md': '# Keys\x1b]0;owned\x07\n\nRotate the keys \x1b]52;c;cm0gLXJmIH4=\x07 now \u009b31m \u202ex\x08.\n',
    };
    const ws = workspace(t, { notes: hostile }, 'none');
    assert.equal((await cli(t, ws, ['index', '--quiet'])).code, 0);
    const env = { PATH: process.env.PATH, HOME: ws.home, NOTEGATE_MODEL_CACHE: testModelCache(), TERM: 'xterm' };
    const command = shellWords([process.execPath, cliPath(), 'search', 'rotate', 'keys']);
    const { code, stdout } = await runInGroup(t, 'script', ['-qec', command, '/dev/null'], env, ws.root);
    assert.equal(code, 0, stdout);
    // Only our own styles reach the terminal: bold, the marked terms, dim, reset.
    assert.ok(stdout.includes('\x1b[1;33mRotate\x1b[0m'), JSON.stringify(stdout));
    const ours = ['\x1b[1;33m', '\x1b[0m', '\x1b[1m', '\x1b[2m'];
    const rest = ours.reduce((text, style) => text.replaceAll(style, ''), stdout).replace(/\r?\n/g, '');
    assert.equal(firstTerminalControl(rest), undefined, JSON.stringify(stdout));
    assert.ok(rest.includes('Keys\\x1b]0;owned\\x07'), rest);
    assert.ok(rest.includes('\\x1b]52;c;cm0gLXJmIH4=\\x07 now \\x9b31m \\u202ex\\x08.'), rest);
  });

  it('filters by tag, returns whole notes, corrects typos and shows snippets without markdown', async (t) => {
    const ws = await indexed(t, 'none', TAGGED);
    const tagged = await cli(t, ws, ['search', 'boil', '--tag', 'project', '--json']);
    assert.equal(tagged.code, 0, tagged.stderr);
    const body = JSON.parse(tagged.stdout) as { hits: Record<string, unknown>[]; corrections: unknown[] };
    assert.deepEqual(
      body.hits.map((h) => [h.path, h.snippet, h.marks]),
      [['recipes/eggs.md', 'Boil the eggs for seven minutes.', [[0, 4]]]],
    );
    assert.deepEqual(body.corrections, []);
    assert.equal((await cli(t, ws, ['search', 'boil', '--tag', 'journal'])).stdout, 'no matches\n');
    const typo = await cli(t, ws, ['search', 'sigining', 'keys']);
    assert.match(typo.stdout, /^searched for signing \(not sigining\)\n\n1\. Keys {2}notes\/ops\/keys\.md:5-9\n/);
    const files = await cli(t, ws, ['search', 'keys', '--files', '--json', '--top', '50']);
    const notes = (JSON.parse(files.stdout) as { hits: Record<string, unknown>[] }).hits;
    assert.deepEqual(
      notes.map((h) => h.path),
      [...new Set(notes.map((h) => h.path))],
      'each note once',
    );
    const keys = notes.find((h) => h.path === 'ops/keys.md');
    assert.deepEqual([keys?.line_start, keys?.line_end], [5, 9]);
  });

  it('says what to do when there is no index yet', async (t) => {
    const ws = workspace(t, { notes: NOTES }, 'none');
    const { code, stderr } = await cli(t, ws, ['search', 'keys']);
    assert.equal(code, 1);
    assert.match(stderr, /no index at .*index\.sqlite; run 'notegate-rag index'/);
  });
});
