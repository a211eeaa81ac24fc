import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { reportedIndexPath } from '../../src/http/health.js';

describe('the index path /health reports', () => {
  const cases: [string, string, string, string][] = [
    ['inside the repository', '/home/ada/repo/.notegate/index.sqlite', '/home/ada/repo', '.notegate/index.sqlite'],
    ['at the repository root', '/home/ada/repo/index.sqlite', '/home/ada/repo', 'index.sqlite'],
    ['outside the repository: the file name only', '/var/lib/notes/index.sqlite', '/home/ada/repo', 'index.sqlite'],
    ['in a sibling whose name starts alike', '/home/ada/repo2/i.sqlite', '/home/ada/repo', 'i.sqlite'],
  ];
  for (const [what, indexPath, repoRoot, expected] of cases) {
    it(what, () => assert.equal(reportedIndexPath(indexPath, repoRoot), expected));
  }
});
