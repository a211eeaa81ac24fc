import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { waitFor } from '@notegate/kit/testing';
import { cliPath, runNode, spawnNode } from '../../test-support/child.js';
import { workspace } from '../../test-support/fixtures.js';
import { testModelCache } from '../../test-support/test-model/test-model.js';

const NOTES = 120;
const FILLER = 'Field notes on the harbour, the tides and the ferry timetable, kept for the whole team. ';

function note(i: number, word: string): string {
  return `# Note ${i}\n\n## Log\n\n${FILLER.repeat(2)}Marker ${word}.\n\n## More\n\n${FILLER}\n`;
}

interface Reply {
  readonly status: number;
  readonly scoring: string | null;
  readonly paths: readonly string[];
}

async function search(url: URL, query: string, mode: string): Promise<Reply> {
  const response = await fetch(new URL('/search', url), { method: 'POST', body: JSON.stringify({ query, mode }) });
  const body = (await response.json()) as { hits?: { path: string }[] };
  return {
    status: response.status,
    scoring: response.headers.get('x-notegate-word-scoring'),
    paths: (body.hits ?? []).map((hit) => hit.path),
  };
}

/** Searches without pause until stopped, keeping every reply. */
function searchLoop(url: URL): { readonly replies: Reply[]; stop(): Promise<void> } {
  const replies: Reply[] = [];
  let running = true;
  const loop = (async () => {
    for (let i = 0; running; i += 1) {
      replies.push(
        await search(url, i % 3 === 0 ? 'ferry timetable' : `harbour marker${i % 7}`, i % 2 ? 'hybrid' : 'lexical'),
      );
    }
  })();
  return {
    replies,
    stop: async () => {
      running = false;
      await loop;
    },
  };
}

describe('writes while searching (process)', () => {
  it('serve --watch ranks every search from memory while notes are written, replaced and deleted, and finds each write', async (t) => {
    const files = Object.fromEntries(Array.from({ length: NOTES }, (_, i) => [`n${i}.md`, note(i, `marker${i % 7}`)]));
    const ws = workspace(t, { v: files });
    const vault = path.join(ws.root, 'vaults', 'v');
    const env = { PATH: process.env.PATH, HOME: ws.home, NOTEGATE_MODEL_CACHE: testModelCache() };
    const child = spawnNode(t, cliPath(), ['serve', '--config', ws.configPath, '--port', '0', '--watch'], { env });
    let stderr = '';
    child.process.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const url = new URL((await child.waitForLine(/^listening on /)).replace('listening on ', ''));
    await waitFor('the start-up run', async () => (await search(url, 'harbour', 'lexical')).paths.length > 0);

    const searches = searchLoop(url);
    for (let i = 0; i < 12; i += 1) {
      const word = `zephyr${i}quill`;
      writeFileSync(path.join(vault, `new-${i}.md`), note(1000 + i, word));
      // A replaced note (its old chunks deleted in place) and, now and then, a deleted one.
      writeFileSync(path.join(vault, `n${i}.md`), note(i, `marker${i % 7} rewritten`));
      if (i % 4 === 3) rmSync(path.join(vault, `n${NOTES - 1 - i}.md`));
      await waitFor(`note ${i}`, async () => (await search(url, word, 'lexical')).paths.includes(`new-${i}.md`));
    }
    await searches.stop();

    assert.ok(searches.replies.length > 20, `searches during the writes: ${searches.replies.length}`);
    const answers = searches.replies.map((reply) => `${reply.status} ${reply.scoring}`);
    assert.deepEqual([...new Set(answers)], ['200 memory'], 'every search ranked the word tier in memory');
    const loads = stderr.match(/index loaded: .*/g) ?? [];
    assert.deepEqual(
      loads.filter((line) => line.includes('(whole')),
      [loads.find((line) => line.includes('(whole: first load)'))],
      'loaded whole once, at start; every write followed as a change',
    );
    child.process.kill('SIGTERM');
    assert.equal(await child.exited(), 0);
  });

  it('a separate index run commits while the server ranks every search from memory', async (t) => {
    const files = Object.fromEntries(Array.from({ length: NOTES }, (_, i) => [`n${i}.md`, note(i, `marker${i % 7}`)]));
    const ws = workspace(t, { v: files });
    const env = { PATH: process.env.PATH, HOME: ws.home, NOTEGATE_MODEL_CACHE: testModelCache() };
    const index = () => runNode(t, cliPath(), ['index', '--config', ws.configPath, '--quiet'], { env });
    assert.equal((await index()).code, 0);
    const child = spawnNode(t, cliPath(), ['serve', '--config', ws.configPath, '--port', '0'], { env });
    const url = new URL((await child.waitForLine(/^listening on /)).replace('listening on ', ''));
    await waitFor('the first snapshot', async () => (await search(url, 'harbour', 'lexical')).paths.length > 0);

    const searches = searchLoop(url);
    const vault = path.join(ws.root, 'vaults', 'v');
    for (let i = 0; i < 40; i += 1) writeFileSync(path.join(vault, `n${i}.md`), note(i, `osprey${i}`));
    assert.equal((await index()).code, 0);
    await waitFor('the run followed', async () => (await search(url, 'osprey39', 'lexical')).paths.includes('n39.md'));
    await searches.stop();

    const answers = searches.replies.map((reply) => `${reply.status} ${reply.scoring}`);
    assert.deepEqual([...new Set(answers)], ['200 memory']);
    child.process.kill('SIGTERM');
    assert.equal(await child.exited(), 0);
  });
});
