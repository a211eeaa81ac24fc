import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { NO_MODEL } from '../../src/config/models.js';
import { SearchIndex } from '../../src/search/search-index.js';
import { IndexStore } from '../../src/store/index-store.js';
import { fileRecord, tempDir } from '../../test-support/fixtures.js';

describe('SearchIndex', () => {
  it('answers a search that arrives while the first snapshot loads, once it has loaded (docs/retrieval.md#snapshots)', async (t) => {
    const indexPath = path.join(tempDir(t), 'index.sqlite');
    const store = IndexStore.open(indexPath, { model: NO_MODEL, nowMs: 1 });
    const chunk = { seq: 0, heading: '', lineStart: 1, lineEnd: 2, text: 'rotate the signing keys', tokenCount: 4 };
    store.replaceFile(fileRecord('keys.md'), [{ ...chunk, vector: new Float32Array(0) }], 1);
    store.finishRun('', '{}', 2);
    store.close();
    const index = new SearchIndex({ indexPath, model: NO_MODEL, modelCacheDir: '/nonexistent' });
    t.after(() => index.close());
    const started = index.start();
    assert.equal(index.snapshots.current.kind, 'loading');
    const result = await index.search({
      query: 'signing keys',
      top: 5,
      vaults: undefined,
      namespaces: undefined,
      mode: 'lexical',
      mmr: false,
      mmrLambda: 0.7,
    });
    assert.deepEqual(
      result.hits.map((hit) => hit.path),
      ['keys.md'],
    );
    await started;
  });
});
