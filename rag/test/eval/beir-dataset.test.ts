import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { RagError } from '../../src/errors/rag-error.js';
import { loadBeirDataset } from '../../src/eval/beir-dataset.js';
import { tempDir, writeFiles } from '../../test-support/fixtures.js';

const CORPUS = '{"_id": "d1", "title": "Keys", "text": "Rotate the keys."}\n{"_id": 2, "text": "Untitled."}\n';
const QUERIES =
  '{"_id": "q1", "text": "rotate keys"}\n{"_id": "q2", "text": "other"}\n{"_id": "q3", "text": "unjudged"}\n';

function dataset(t: TestContext, files: Record<string, string>): string {
  const dir = tempDir(t);
  writeFiles(dir, { 'corpus.jsonl': CORPUS, 'queries.jsonl': QUERIES, ...files });
  return dir;
}

describe('BEIR dataset loader', () => {
  it('reads the three files with CRLF line endings, a header, blank lines and numeric ids', async (t) => {
    const dir = dataset(t, {
      'qrels/test.tsv': 'query-id\tcorpus-id\tscore\r\nq1\td1\t1\r\n\r\nq1\t2\t0\r\nq2\t2\t2\r\n',
    });
    const data = await loadBeirDataset(dir, 'test');
    assert.deepEqual(data.documents, [
      { id: 'd1', title: 'Keys', text: 'Rotate the keys.' },
      { id: '2', title: '', text: 'Untitled.' },
    ]);
    assert.deepEqual(
      [...data.queries],
      [
        ['q1', 'rotate keys'],
        ['q2', 'other'],
      ],
    );
    assert.deepEqual(
      [...data.judgments].map(([q, grades]) => [q, [...grades]]),
      [
        [
          'q1',
          [
            ['d1', 1],
            ['2', 0],
          ],
        ],
        ['q2', [['2', 2]]],
      ],
    );
  });

  const MALFORMED: readonly [string, Record<string, string>, RegExp][] = [
    [
      'a corpus line that is not JSON',
      { 'corpus.jsonl': '{"_id": "a", "text": "x"}\n{"_id": "b", "text": \n' },
      /corpus\.jsonl:2: not valid JSON/,
    ],
    ['a document without text', { 'corpus.jsonl': '\n{"_id": "a", "title": "t"}\n' }, /corpus\.jsonl:2: text: /],
    ['a document with an empty id', { 'corpus.jsonl': '{"_id": "", "text": "x"}\n' }, /corpus\.jsonl:1: _id: /],
    [
      'a duplicate document id',
      { 'corpus.jsonl': '{"_id": "a", "text": "x"}\r\n{"_id": "a", "text": "y"}\r\n' },
      /corpus\.jsonl:2: duplicate _id "a"/,
    ],
    ['a query that is an array', { 'queries.jsonl': '[]\n' }, /queries\.jsonl:1: /],
    [
      'a judgment with two fields',
      { 'qrels/test.tsv': 'q1\td1\t1\nq1\td1\n' },
      /qrels\/test\.tsv:2: expected query-id<TAB>corpus-id<TAB>integer score, got "q1\\td1"/,
    ],
    ['a judgment with a fractional score', { 'qrels/test.tsv': 'q1\td1\t0.5\nq1\td1\t1\n' }, /qrels\/test\.tsv:1: /],
    [
      'a judgment of an unknown query',
      { 'qrels/test.tsv': 'q1\td1\t1\nq9\td1\t1\n' },
      /qrels\/test\.tsv:2: query-id "q9" is not in queries\.jsonl/,
    ],
    [
      'a split without judgments',
      { 'qrels/test.tsv': 'query-id\tcorpus-id\tscore\n' },
      /qrels\/test\.tsv: no judgments/,
    ],
  ];
  for (const [label, files, message] of MALFORMED) {
    it(`refuses ${label}, naming the file and line`, async (t) => {
      const dir = dataset(t, { 'qrels/test.tsv': 'q1\td1\t1\n', ...files });
      await assert.rejects(loadBeirDataset(dir, 'test'), (err: unknown) => check(err, message));
    });
  }

  it('refuses a split that is not there, naming the file and what a dataset holds', async (t) => {
    const dir = dataset(t, { 'qrels/test.tsv': 'q1\td1\t1\n' });
    await assert.rejects(loadBeirDataset(dir, 'train'), (err: unknown) =>
      check(
        err,
        /qrels\/train\.tsv: not found \(a BEIR dataset has corpus\.jsonl, queries\.jsonl and qrels\/<split>\.tsv\)/,
      ),
    );
  });
});

function check(err: unknown, message: RegExp): boolean {
  return (
    err instanceof RagError &&
    err.code === 'ERR_DATASET' &&
    message.test(err.message) &&
    path.isAbsolute(err.message.split(':')[0] ?? '')
  );
}
