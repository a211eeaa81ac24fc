import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createInterruptReport } from '../../src/cli/interrupt-report.js';
import type { FileOutcome, IndexProgress } from '../../src/indexer/types.js';

const done = (filesDone: number, outcome: FileOutcome): IndexProgress => ({
  kind: 'file-done',
  vault: 'v',
  path: `${filesDone}.md`,
  outcome,
  filesDone,
  filesTotal: 10,
  bytesDone: filesDone,
  bytesTotal: 10,
  chunksEmbedded: filesDone,
});

describe('createInterruptReport', () => {
  it('says what is committed and that the next run goes on from there', () => {
    const table: [IndexProgress[], string][] = [
      [[], 'interrupted before any note was read; the index is as it was'],
      [
        [
          { kind: 'scanned', vault: 'v', files: 12 },
          { kind: 'planned', filesToCheck: 10, bytesToCheck: 10, unchanged: 2, removed: 1 },
        ],
        "interrupted: 0 of 10 files checked and committed (0 indexed, 1 removed); the index keeps them, and the next 'notegate-rag index' goes on with the 10 left",
      ],
      [
        [
          { kind: 'planned', filesToCheck: 10, bytesToCheck: 10, unchanged: 0, removed: 0 },
          done(1, 'new'),
          done(2, 'unchanged'),
          done(3, 'updated'),
          done(4, 'skipped'),
        ],
        "interrupted: 4 of 10 files checked and committed (2 indexed); the index keeps them, and the next 'notegate-rag index' goes on with the 6 left",
      ],
    ];
    for (const [events, expected] of table) {
      const report = createInterruptReport();
      for (const event of events) report.onProgress(event);
      assert.equal(report.describe(), expected);
    }
  });
});
