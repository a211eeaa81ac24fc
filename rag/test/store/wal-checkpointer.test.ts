import assert from 'node:assert/strict';
import { existsSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { NO_MODEL } from '../../src/config/models.js';
import { IndexStore } from '../../src/store/index-store.js';
import { WalCheckpointer } from '../../src/store/wal-checkpointer.js';
import { fileRecord, tempDir } from '../../test-support/fixtures.js';

const chunk = (seq: number, text: string) => ({
  seq,
  heading: 'H',
  lineStart: 1,
  lineEnd: 1,
  text,
  tokenCount: 3,
  vector: new Float32Array(0),
});

describe('WalCheckpointer', () => {
  it('copies what the writer committed into the database file from its own thread, and stops when closed', async (t) => {
    const file = path.join(tempDir(t), 'index.sqlite');
    const checkpoints = new WalCheckpointer(file);
    const store = IndexStore.open(file, { model: NO_MODEL, nowMs: 1, walCheckpoints: checkpoints });
    const before = statSync(file).size;
    const large = Array.from({ length: 20 }, (_, seq) => chunk(seq, `${'granite '.repeat(10_000)}${seq}`));
    store.replaceFile(fileRecord('a.md'), large, 5);
    store.replaceFile(fileRecord('b.md'), [chunk(0, 'small')], 5);
    await checkpoints.close();
    assert.ok(statSync(file).size > before + 1_000_000, `${statSync(file).size} bytes after the checkpoints`);
    store.close();
    assert.equal(existsSync(`${file}-wal`), false, 'the writer, last to close, removed the log');
  });

  it('says which file it could not checkpoint when closed, and never throws at a request', async (t) => {
    const file = path.join(tempDir(t), 'not-an-index');
    writeFileSync(file, 'plain text, not SQLite');
    const checkpoints = new WalCheckpointer(file);
    checkpoints.request();
    checkpoints.request();
    await assert.rejects(checkpoints.close(), (err: unknown) => {
      assert.ok(err instanceof Error);
      assert.match(err.message, /^checkpointing .*not-an-index failed: /);
      return true;
    });
  });

  it('closes at once when nothing was asked', async (t) => {
    await new WalCheckpointer(path.join(tempDir(t), 'index.sqlite')).close();
  });
});
