import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { queryTerms } from '../../src/lexical/query-terms.js';
import { IndexSnapshot } from '../../src/snapshot/index-snapshot.js';
import { IndexStore } from '../../src/store/index-store.js';
import { spawnNode } from '../../test-support/child.js';
import { assertConsistent, assertFtsIntact } from '../../test-support/consistency.js';
import { fileRecord, MINILM, model, tempDir } from '../../test-support/fixtures.js';

const FILES = 400;
const MODEL = model(MINILM);

function writeIndex(file: string): void {
  const store = IndexStore.open(file, { model: MODEL, nowMs: 1 });
  for (let f = 0; f < FILES; f += 1) {
    const chunks = Array.from({ length: 10 }, (_, seq) => {
      const vector = new Float32Array(MODEL.dimension);
      vector[(f + seq) % MODEL.dimension] = 1;
      return {
        seq,
        heading: 'H',
        lineStart: 1,
        lineEnd: 1,
        text: `first chunk ${seq} of file ${f}`,
        tokenCount: 1,
        vector,
      };
    });
    store.replaceFile(fileRecord(`n${f}.md`, { aliases: [] }), chunks, 1);
  }
  store.finishRun('', '{}', 2);
  store.close();
}

/** The change log tells the chunks that are there: each one's last entry adds it, and no other id's does. */
function assertLogMatchesChunks(file: string): void {
  const db = new Database(file, { readonly: true });
  try {
    const chunks = db.prepare('SELECT id FROM chunks ORDER BY id').pluck().all();
    const added = db
      .prepare(
        'SELECT chunk_id FROM chunk_changes c WHERE seq = (SELECT max(seq) FROM chunk_changes WHERE chunk_id = c.chunk_id) AND added = 1 ORDER BY chunk_id',
      )
      .pluck()
      .all();
    assert.deepEqual(added, chunks);
  } finally {
    db.close();
  }
}

describe('crash safety of merging (kill -9 of a real process)', () => {
  it('leaves a consistent index when a process is killed while it merges segments and writes', async (t) => {
    const file = path.join(tempDir(t), 'index.sqlite');
    writeIndex(file);
    const script = fileURLToPath(new URL('../../test-support/merge-child.js', import.meta.url));
    const child = spawnNode(t, script, [file, String(FILES)]);
    // A merge of the loaded segment (deleted rows beyond a tenth of all rows): it copies every row.
    await child.waitForLine(/^merge started \d{4,}$/, 120_000);
    child.process.kill('SIGKILL');
    await child.exited();
    assert.ok(
      !child.lines.some((line) => /^merged \d{4,}$/.test(line)),
      `killed before the merge was installed: ${child.lines.join(' | ')}`,
    );

    assert.equal(assertConsistent(file, MODEL.dimension).files, FILES);
    assertFtsIntact(file);
    assertLogMatchesChunks(file);
    const whole = await IndexSnapshot.open(file, { model: MODEL });
    const sqlite = await IndexSnapshot.open(file, { model: MODEL, memoryWords: false });
    t.after(() => {
      whole.close();
      sqlite.close();
    });
    assert.equal(whole.lexical.scoring, 'memory');
    const scope = { vaults: undefined, namespaces: undefined };
    for (const query of ['round chunk', 'first file 7', 'chunk 3']) {
      const { terms } = queryTerms(query, { ngrams: true });
      assert.deepEqual(
        whole.lexical.wordRanking(terms).rank(terms, scope, 50),
        sqlite.lexical.wordRanking(terms).rank(terms, scope, 50),
      );
    }
  });
});
