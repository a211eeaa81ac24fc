import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { RagError } from '../../src/errors/rag-error.js';
import { IndexSnapshot } from '../../src/snapshot/index-snapshot.js';
import { IndexStore } from '../../src/store/index-store.js';
import { E5_SMALL, MINILM, model, tempDir } from '../../test-support/fixtures.js';

function refusal(code: string, message: RegExp) {
  return (err: unknown) => err instanceof RagError && err.code === code && message.test(err.message);
}

describe('IndexSnapshot.open', () => {
  it('refuses an index of another model or format with advice for serve', async (t) => {
    const file = path.join(tempDir(t), 'index.sqlite');
    IndexStore.open(file, { model: model(MINILM), nowMs: 0 }).close();
    await assert.rejects(
      IndexSnapshot.open(file, { model: model(E5_SMALL) }),
      refusal(
        'ERR_INDEX_MODEL_MISMATCH',
        /^index .*index\.sqlite was built with sentence-transformers\/all-MiniLM-L6-v2 \(384 dimensions\) but the config names intfloat\/multilingual-e5-small \(384 dimensions\); run 'notegate-rag index --rebuild', then restart serve$/,
      ),
    );
    const db = new Database(file);
    db.pragma('user_version = 99');
    db.close();
    await assert.rejects(
      IndexSnapshot.open(file, { model: model(MINILM) }),
      refusal('ERR_INDEX_SCHEMA', /has format version 99, this version reads 4; run 'notegate-rag index --rebuild'$/),
    );
    const empty = path.join(tempDir(t), 'empty.sqlite');
    new Database(empty).close();
    await assert.rejects(
      IndexSnapshot.open(empty, { model: model(MINILM) }),
      refusal(
        'ERR_INDEX_SCHEMA',
        /is not a notegate index \(or it is still being created\); run 'notegate-rag index'$/,
      ),
    );
  });
});
