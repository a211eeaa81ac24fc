import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { RagError } from '../../src/errors/rag-error.js';
import { acquireIndexLock } from '../../src/store/index-lock.js';
import { tempDir } from '../../test-support/fixtures.js';

describe('acquireIndexLock', () => {
  it('lets one holder in at a time and names the index to the second', (t) => {
    const indexPath = path.join(tempDir(t), 'nested', 'index.sqlite');
    const first = acquireIndexLock(indexPath);
    assert.throws(
      () => acquireIndexLock(indexPath),
      (err: unknown) => err instanceof RagError && err.code === 'ERR_INDEX_BUSY' && err.message.includes(indexPath),
    );
    first.release();
    acquireIndexLock(indexPath).release();
  });
});
