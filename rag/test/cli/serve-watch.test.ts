import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { waitFor } from '@notegate/kit/testing';
import { RagError } from '../../src/errors/rag-error.js';
import { acquireIndexLock } from '../../src/store/index-lock.js';
import { cliPath, spawnNode } from '../../test-support/child.js';
import { workspace } from '../../test-support/fixtures.js';
import { testModelCache } from '../../test-support/test-model/test-model.js';

interface Hit {
  readonly path: string;
  readonly text: string;
}

/** The hits, or none while the index does not exist yet (503 from /health and /search). */
async function search(url: URL, query: string, mode: string): Promise<Hit[]> {
  const response = await fetch(new URL('/search', url), { method: 'POST', body: JSON.stringify({ query, mode }) });
  const body = (await response.json()) as { hits?: Hit[]; error?: string };
  if (response.status === 503 && body.error === 'index_missing') return [];
  assert.equal(response.status, 200, JSON.stringify(body));
  return body.hits ?? [];
}

describe('notegate-rag serve --watch (process)', () => {
  it('indexes at start, then picks up a new, an edited and a deleted note; waits out an index run holding the lock', async (t) => {
    const ws = workspace(t, {
      v: {
        'keep.md': '# Keep\n\nThe lighthouse keeper logs every ship.\n',
        'gone.md': '# Gone\n\nA zeppelin hangar.\n',
      },
    });
    const vault = path.join(ws.root, 'vaults', 'v');
    const env = { PATH: process.env.PATH, HOME: ws.home, NOTEGATE_MODEL_CACHE: testModelCache() };
    const child = spawnNode(t, cliPath(), ['serve', '--config', ws.configPath, '--port', '0', '--watch'], { env });
    let stderr = '';
    child.process.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const url = new URL((await child.waitForLine(/^listening on /)).replace('listening on ', ''));
    const paths = async (query: string, mode = 'lexical') => (await search(url, query, mode)).map((hit) => hit.path);

    // No index before: the first run makes it, with the model the searches use (hybrid works).
    await waitFor('the start-up run', async () => (await paths('lighthouse')).includes('keep.md'));
    assert.ok((await paths('lighthouse', 'hybrid')).includes('keep.md'));

    writeFileSync(path.join(vault, 'keep.md'), '# Keep\n\nThe lighthouse keeper now logs every submarine.\n');
    writeFileSync(path.join(vault, 'new.md'), '# New\n\nA funicular railway timetable.\n');
    rmSync(path.join(vault, 'gone.md'));
    await waitFor('the edit', async () => (await paths('submarine')).includes('keep.md'));
    await waitFor('the new note', async () => (await paths('funicular')).includes('new.md'));
    await waitFor('the deletion', async () => (await paths('zeppelin')).length === 0);

    // The follower may still be in a run the watch events started after the last one searched: its lock is waited out.
    const lock = await waitFor('the follower to finish its run', () => {
      try {
        return acquireIndexLock(ws.config.indexPath);
      } catch (err) {
        if (err instanceof RagError && err.code === 'ERR_INDEX_BUSY') return undefined;
        throw err;
      }
    });
    let released = false;
    t.after(() => {
      if (!released) lock.release();
    });
    writeFileSync(
      path.join(vault, 'late.md'),
      '# Late\n\nWritten while another index run held the lock: an aqueduct.\n',
    );
    await waitFor('the follower to find the lock held', () => stderr.includes('another index run holds the index'));
    assert.deepEqual(await paths('aqueduct'), [], 'not indexed while the lock is held');
    lock.release();
    released = true;
    await waitFor('the note written under the lock', async () => (await paths('aqueduct')).includes('late.md'));

    child.process.kill('SIGTERM');
    assert.equal(await child.exited(), 0);
  });

  it('follows a lexical-only vault (embed_model none) without loading any model', async (t) => {
    const ws = workspace(t, { v: { 'keep.md': '# Keep\n\nThe lighthouse keeper logs every ship.\n' } }, 'none');
    const vault = path.join(ws.root, 'vaults', 'v');
    // No model cache at all: a model load would fail, and with it every index run.
    const env = { PATH: process.env.PATH, HOME: ws.home, NOTEGATE_MODEL_CACHE: path.join(ws.home, 'no-models') };
    const child = spawnNode(t, cliPath(), ['serve', '--config', ws.configPath, '--port', '0', '--watch'], { env });
    let stderr = '';
    child.process.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const url = new URL((await child.waitForLine(/^listening on /)).replace('listening on ', ''));
    const paths = async (query: string) => (await search(url, query, 'lexical')).map((hit) => hit.path);

    await waitFor('the start-up run', async () => (await paths('lighthouse')).includes('keep.md'));
    writeFileSync(path.join(vault, 'new.md'), '# New\n\nA funicular railway timetable.\n');
    await waitFor('the new note', async () => (await paths('funicular')).includes('new.md'));
    assert.doesNotMatch(stderr, /index run failed/, stderr);

    child.process.kill('SIGTERM');
    assert.equal(await child.exited(), 0);
  });
});
