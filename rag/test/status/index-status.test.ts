import assert from 'node:assert/strict';
import { rmSync, statSync, utimesSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { runIndex } from '../../src/indexer/run-index.js';
import { indexStatus } from '../../src/status/index-status.js';
import { MINILM, workspace, writeFiles } from '../../test-support/fixtures.js';
import { indexOptions } from '../../test-support/run.js';
import { testModelCache } from '../../test-support/test-model/test-model.js';

const NOTES = { 'a.md': '# A\n\nAlpha note.\n', 'b.md': '# B\n\nBeta note.\n', 'c.md': '# C\n\nGamma.\n' };

describe('indexStatus', () => {
  it('counts what the index holds and what the next run would read: new, modified, deleted', async (t) => {
    const ws = workspace(t, { v: NOTES, w: { 'x.md': '# X\n\nx\n' } }, 'none');
    const location = { file: ws.configPath, source: 'flag' } as const;
    const before = await indexStatus(ws.config, location, '/nonexistent');
    assert.deepEqual(before.index, { state: 'missing' });
    assert.deepEqual(
      before.vaults.map((vault) => [vault.id, vault.files, vault.added]),
      [
        ['v', 0, 3],
        ['w', 0, 1],
      ],
    );
    await runIndex(indexOptions(ws));
    const vault = path.join(ws.root, 'vaults', 'v');
    writeFiles(vault, { 'd.md': '# D\n\nDelta.\n', 'a.md': '# A\n\nAlpha, changed.\n' });
    const later = new Date(statSync(path.join(vault, 'b.md')).mtimeMs + 5_000);
    utimesSync(path.join(vault, 'b.md'), later, later);
    rmSync(path.join(vault, 'c.md'));
    const status = await indexStatus(ws.config, location, '/nonexistent');
    assert.equal(status.index.state, 'ready');
    assert.equal(status.index.state === 'ready' && status.index.meta.lexicalLayout, 'words+trigram');
    assert.deepEqual(status.vaults[0], {
      id: 'v',
      path: vault,
      files: 3,
      chunks: 3,
      added: 1,
      modified: 2,
      removed: 1,
    });
    assert.deepEqual(
      { ...status.vaults[1], path: '' },
      { id: 'w', path: '', files: 1, chunks: 1, added: 0, modified: 0, removed: 0 },
    );
    assert.deepEqual(status.missingModelFiles, []);
    assert.equal(status.weights, undefined);
  });

  it('says which model files are missing, and whether the weights are the official release', async (t) => {
    const ws = workspace(t, { v: NOTES }, MINILM);
    const location = { file: ws.configPath, source: 'flag' } as const;
    const missing = await indexStatus(ws.config, location, path.join(ws.root, 'no-cache'));
    assert.deepEqual(missing.missingModelFiles, [
      'config.json',
      'tokenizer.json',
      'tokenizer_config.json',
      'onnx/model_quantized.onnx',
    ]);
    const present = await indexStatus(ws.config, location, testModelCache());
    assert.deepEqual(present.missingModelFiles, []);
    // The test model's weights are not the release's: present, not verified.
    assert.equal(present.weights?.verified, false);
    assert.match(present.weights?.sha256 ?? '', /^[0-9a-f]{64}$/);
  });

  it('reports a file that is not an index as unreadable, and vaults the config no longer names', async (t) => {
    const ws = workspace(t, { v: NOTES, gone: { 'g.md': '# G\n\ng\n' } }, 'none');
    await runIndex(indexOptions(ws));
    const narrowed = workspace(t, { v: NOTES }, 'none');
    const config = { ...narrowed.config, indexPath: ws.config.indexPath };
    const status = await indexStatus(config, { file: narrowed.configPath, source: 'flag' }, '/nonexistent');
    assert.deepEqual(status.unconfigured, [{ id: 'gone', files: 1 }]);
    writeFiles(path.dirname(narrowed.config.indexPath), { 'index.sqlite': 'not an index' });
    const foreign = await indexStatus(narrowed.config, { file: narrowed.configPath, source: 'flag' }, '/nonexistent');
    assert.equal(foreign.index.state, 'unreadable');
    assert.match(foreign.index.state === 'unreadable' ? foreign.index.reason : '', /not a database/);
  });
});
