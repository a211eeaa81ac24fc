import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { waitFor } from '@notegate/kit/testing';
import { RagError } from '../../src/errors/rag-error.js';
import { readIndexContents } from '../../src/store/index-contents.js';
import { cliPath, runNode, spawnNode } from '../../test-support/child.js';
import { MINILM, type Workspace, workspace } from '../../test-support/fixtures.js';
import { testModelCache } from '../../test-support/test-model/test-model.js';

/** Notes enough that embedding them with the test model takes seconds, not milliseconds. */
function manyNotes(count: number): Record<string, string> {
  const notes: Record<string, string> = {};
  for (let i = 0; i < count; i++) {
    notes[`n${i}.md`] = `# Note ${i}\n\n${`word${i} lorem ipsum dolor sit amet. `.repeat(40)}\n`;
  }
  return notes;
}

/** Files the index holds, 0 while there is no index yet. */
function filesIndexed(ws: Workspace): number {
  try {
    return readIndexContents(ws.config.indexPath).vaults.reduce((sum, vault) => sum + vault.files, 0);
  } catch (err) {
    if (err instanceof RagError) return 0;
    throw err;
  }
}

function startIndex(t: TestContext, ws: Workspace, ...args: string[]) {
  const env = { PATH: process.env.PATH, HOME: ws.home, NOTEGATE_MODEL_CACHE: testModelCache() };
  const child = spawnNode(t, cliPath(), ['index', '--config', ws.configPath, '--offline', ...args], { env });
  const stderr: string[] = [];
  child.process.stderr.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
  return { child, stderr, env };
}

describe('notegate-rag index, long runs', () => {
  it('on Ctrl-C says how much is committed and exits 130; the next run goes on with the rest', async (t) => {
    const total = 300;
    const ws = workspace(t, { v: manyNotes(total) }, MINILM);
    const { child, stderr, env } = startIndex(t, ws);
    await waitFor('files committed to the index', () => filesIndexed(ws) > 0, 120_000);
    child.process.kill('SIGINT');
    assert.equal(await child.exited(), 130, stderr.join(''));
    const said =
      /notegate-rag index: interrupted: (\d+) of 300 files checked and committed \((\d+) indexed\); the index keeps them, and the next 'notegate-rag index' goes on with the (\d+) left\n$/.exec(
        stderr.join(''),
      );
    assert.ok(said, stderr.join(''));
    const committed = Number(said[2]);
    assert.equal(filesIndexed(ws), committed, 'what it said is what the index holds');
    assert.equal(Number(said[3]), total - committed);
    const next = await runNode(t, cliPath(), ['index', '--config', ws.configPath, '--offline', '--json', '--quiet'], {
      env,
    });
    assert.equal(next.code, 0, next.stderr);
    const summary = JSON.parse(next.stdout) as { new: number; unchanged: number };
    assert.deepEqual([summary.new, summary.unchanged], [total - committed, committed]);
  });

  it('--watch follows the vaults without a server: a new note is indexed, a deleted one removed; Ctrl-C stops (exit 0)', async (t) => {
    const ws = workspace(t, { v: { 'a.md': '# A\n\nalpha\n' } }, 'none');
    const { child, stderr } = startIndex(t, ws, '--watch', '--quiet');
    await waitFor('following', () => stderr.join('').includes('Ctrl-C stops following'));
    assert.match(child.lines.join('\n'), /^v: 1 new/);
    const vault = path.join(ws.root, 'vaults', 'v');
    writeFileSync(path.join(vault, 'b.md'), '# B\n\nbeta\n');
    await waitFor('the new note in the index', () => filesIndexed(ws) === 2);
    rmSync(path.join(vault, 'a.md'));
    await waitFor('the deleted note gone from the index', () => filesIndexed(ws) === 1);
    child.process.kill('SIGINT');
    assert.equal(await child.exited(), 0, stderr.join(''));
    assert.match(stderr.join(''), /indexed: 1 new, 0 updated, 0 removed .*\n.*indexed: 0 new, 0 updated, 1 removed/s);
    assert.match(stderr.join(''), /stopped; the index is up to date as of its last run\n$/);
  });
});
