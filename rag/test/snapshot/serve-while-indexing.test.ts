import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { indexChildScript, spawnNode } from '../../test-support/child.js';
import { workspace } from '../../test-support/fixtures.js';
import { hitsOf, startSearchServer } from '../../test-support/serve.js';
import { testModelCache } from '../../test-support/test-model/test-model.js';

const NOTES = 12;
const FILLER = 'This paragraph is long enough to stand alone as its own chunk under the heading it sits in, '.repeat(3);

function note(i: number, version: string): string {
  const parts = [1, 2, 3].map((k) => `## Part ${k}\n\nNote ${i} part ${k}: version ${version}. ${FILLER}\n`);
  return `# Note ${i}\n\n${parts.join('\n')}`;
}

/** Every file's hits in one response carry one version: a response never mixes two states of a file. */
function versionsByPath(hits: readonly Record<string, unknown>[]): Map<string, Set<string>> {
  const byPath = new Map<string, Set<string>>();
  for (const hit of hits) {
    const version = /version (one|two)/.exec(String(hit.text))?.[1] ?? '?';
    byPath.set(String(hit.path), (byPath.get(String(hit.path)) ?? new Set()).add(version));
  }
  return byPath;
}

describe('serve while index runs', () => {
  it('answers every request from one consistent snapshot while a real index run rewrites the vault, then follows it', async (t) => {
    const files = Object.fromEntries(Array.from({ length: NOTES }, (_, i) => [`n${i}.md`, note(i, 'one')]));
    const ws = workspace(t, { v: files });
    const server = await startSearchServer(t, ws);
    const first = hitsOf(await server.search({ query: 'version', top: 50 }));
    assert.equal(first.length, NOTES * 3);
    const before = (await server.request({ path: '/health' })).body as { index: { last_indexed_at: string } };

    for (let i = 0; i < NOTES; i += 1) writeFileSync(path.join(ws.root, 'vaults', 'v', `n${i}.md`), note(i, 'two'));
    const indexer = spawnNode(t, indexChildScript(), [ws.configPath, ws.home, testModelCache()]);
    let running = true;
    void indexer.exited().then(() => {
      running = false;
    });
    let requests = 0;
    while (running) {
      const reply = await server.search({ query: 'version', top: 50 });
      const hits = hitsOf(reply);
      requests += 1;
      assert.equal(hits.length, NOTES * 3, 'every chunk of every file, old or new');
      for (const [file, versions] of versionsByPath(hits)) {
        assert.equal(versions.size, 1, `${file} mixed ${[...versions].join(', ')}`);
      }
    }
    assert.equal(await indexer.exited(), 0);
    assert.ok(requests > 1, `requests answered during the run: ${requests}`);

    // The snapshot served from here on includes every commit of the finished run.
    await server.snapshots.refresh();
    const hits = hitsOf(await server.search({ query: 'version', top: 50 }));
    const versions = [...new Set([...versionsByPath(hits).values()].flatMap((v) => [...v]))];
    assert.deepEqual(versions, ['two'], 'the server follows the finished run');
    const after = (await server.request({ path: '/health' })).body as {
      index: { last_indexed_at: string; reload_pending: boolean };
    };
    assert.ok(after.index.last_indexed_at > before.index.last_indexed_at);
    assert.equal(after.index.reload_pending, false);
  });
});
