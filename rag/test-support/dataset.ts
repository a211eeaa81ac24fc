import type { TestContext } from 'node:test';
import { tempDir, writeFiles } from './fixtures.js';

/**
 * A small BEIR-format dataset (CRLF judgments with a header, as BEIR ships
 * them) whose queries each have one document a lexical search ranks first.
 */
export function smallDataset(t: TestContext): string {
  const dir = tempDir(t, 'notegate-dataset-');
  const documents = [
    { _id: 'keys', title: 'Key rotation', text: 'Rotate the signing keys every ninety days.' },
    { _id: 'backup', title: 'Backups', text: 'Nightly backups are kept for thirty days.' },
    { _id: 'zh', title: '', text: '分布式数据库系统的设计与实现。' },
    { _id: 'lunch', title: 'Lunch', text: 'The canteen opens at noon.' },
    { _id: 'dec', title: 'Decisions', text: 'DEC-0054 chose SQLite for the index.' },
  ];
  const queries = [
    { _id: 'q1', text: 'How often are signing keys rotated?' },
    { _id: 'q2', text: '数据库' },
    { _id: 'q3', text: 'DEC-0054' },
    { _id: 'q4', text: 'not judged' },
  ];
  writeFiles(dir, {
    'corpus.jsonl': `${documents.map((d) => JSON.stringify(d)).join('\n')}\n`,
    'queries.jsonl': `${queries.map((q) => JSON.stringify(q)).join('\n')}\n`,
    'qrels/test.tsv': 'query-id\tcorpus-id\tscore\r\nq1\tkeys\t1\r\nq2\tzh\t1\r\nq3\tdec\t1\r\n',
  });
  return dir;
}
