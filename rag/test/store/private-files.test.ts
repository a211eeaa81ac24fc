import assert from 'node:assert/strict';
import { chmodSync, existsSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { runIndex } from '../../src/indexer/run-index.js';
import { acquireIndexLock } from '../../src/store/index-lock.js';
import { IndexStore } from '../../src/store/index-store.js';
import { MINILM, model, fileRecord as record, tempDir, workspace } from '../../test-support/fixtures.js';
import { indexOptions } from '../../test-support/run.js';

const modeOf = (file: string) => statSync(file).mode & 0o777;

/** Runs `fn` with umask 000, so that every mode below is the one the code asked for. */
function underOpenUmask<T>(fn: () => T): T {
  const previous = process.umask(0);
  try {
    return fn();
  } finally {
    process.umask(previous);
  }
}

describe('the index files are private', () => {
  it('creates the index directory 0700 and the index, its -wal and -shm and the lock 0600, whatever the umask', (t) => {
    const file = path.join(tempDir(t), 'fresh', 'nested', 'index.sqlite');
    const store = underOpenUmask(() => IndexStore.open(file, { model: model(MINILM), nowMs: 1 }));
    t.after(() => store.close());
    underOpenUmask(() =>
      store.replaceFile(
        record('a.md'),
        [{ seq: 0, heading: '', lineStart: 1, lineEnd: 1, text: 't', tokenCount: 1, vector: new Float32Array(384) }],
        1,
      ),
    );
    assert.equal(modeOf(path.dirname(file)), 0o700);
    assert.equal(modeOf(path.dirname(path.dirname(file))), 0o700);
    for (const suffix of ['', '-wal', '-shm']) {
      assert.ok(existsSync(`${file}${suffix}`), `${suffix || 'the index'} exists while the store is open`);
      assert.equal(modeOf(`${file}${suffix}`), 0o600, `index${suffix}`);
    }
    const lock = underOpenUmask(() => acquireIndexLock(file));
    t.after(() => lock.release());
    assert.equal(modeOf(`${file}.lock`), 0o600);
  });

  it('tightens an index left readable by others, with its side files, on the next index run', async (t) => {
    const ws = workspace(t, { notes: { 'a.md': '# A\n\nAlpha.\n' } });
    await runIndex(indexOptions(ws));
    const file = ws.config.indexPath;
    for (const suffix of ['', '-wal', '-shm', '.lock']) {
      if (!existsSync(`${file}${suffix}`)) writeFileSync(`${file}${suffix}`, '');
      chmodSync(`${file}${suffix}`, 0o644);
    }
    writeFileSync(path.join(ws.root, 'vaults', 'notes', 'b.md'), '# B\n\nBeta.\n');
    const summary = await runIndex(indexOptions(ws));
    assert.equal(summary.new, 1);
    for (const suffix of ['', '-wal', '-shm', '.lock']) {
      if (existsSync(`${file}${suffix}`)) assert.equal(modeOf(`${file}${suffix}`), 0o600, `index${suffix}`);
    }
    assert.equal(modeOf(file), 0o600);
  });

  it('leaves an existing directory as it is (it may be the repository itself)', (t) => {
    const dir = tempDir(t);
    chmodSync(dir, 0o755);
    const store = IndexStore.open(path.join(dir, 'index.sqlite'), { model: model(MINILM), nowMs: 1 });
    store.close();
    assert.equal(modeOf(dir), 0o755);
    assert.equal(modeOf(path.join(dir, 'index.sqlite')), 0o600);
  });
});
