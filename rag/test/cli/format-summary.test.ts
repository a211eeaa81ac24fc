import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatSummary, summaryJson } from '../../src/cli/format-summary.js';
import type { IndexSummary } from '../../src/indexer/types.js';

const summary: IndexSummary = {
  indexPath: '/r/.notegate/index.sqlite',
  modelId: 'intfloat/multilingual-e5-small',
  lexicalLayout: 'words+trigram',
  vaults: ['handbook', 'team'],
  rebuilt: false,
  new: 1,
  updated: 2,
  unchanged: 30,
  removed: 1,
  skipped: [{ vault: 'handbook', path: 'x.md', reason: 'not_utf8', detail: 'the file is not valid UTF-8' }],
  failed: [{ vault: 'team', path: 'y.md', error: 'embedding failed: boom' }],
  warnings: [
    {
      vault: 'team',
      path: 'z.md',
      message: 'code fence at lines 3-900 (2000 tokens) is longer than the model window; split at line boundaries',
    },
  ],
  chunksEmbedded: 12,
  durationMs: 2345,
};

describe('formatSummary', () => {
  it('puts the counts first, then every skipped and failed file with its reason', () => {
    assert.equal(
      formatSummary(summary),
      [
        'handbook, team: 1 new, 2 updated, 30 unchanged, 1 removed, 1 skipped, 1 failed (12 chunks embedded in 2.3 s)',
        'index /r/.notegate/index.sqlite (intfloat/multilingual-e5-small, full-text words+trigram)',
        'skipped:',
        '  handbook/x.md: not_utf8 (the file is not valid UTF-8)',
        'failed:',
        '  team/y.md: embedding failed: boom',
        'warnings:',
        '  team/z.md: code fence at lines 3-900 (2000 tokens) is longer than the model window; split at line boundaries',
        '',
      ].join('\n'),
    );
  });

  it('says chunks were indexed, not embedded, in an index without a model', () => {
    const lines = formatSummary({ ...summary, modelId: 'none', skipped: [], failed: [], warnings: [] }).split('\n');
    assert.deepEqual(lines.slice(0, 2), [
      'handbook, team: 1 new, 2 updated, 30 unchanged, 1 removed, 0 skipped, 0 failed (12 chunks indexed in 2.3 s)',
      'index /r/.notegate/index.sqlite (no embedding model, lexical only, full-text words+trigram)',
    ]);
  });

  it('gives scripts snake_case JSON', () => {
    const json = summaryJson(summary);
    assert.equal(json.chunks_embedded, 12);
    assert.equal(json.lexical_layout, 'words+trigram');
    assert.deepEqual(json.skipped[0], summary.skipped[0]);
  });
});
