import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { plainText } from '../../src/search/plain-text.js';

describe('plainText', () => {
  // [markdown, as read]
  const cases: readonly (readonly [string, string])[] = [
    ['## Raised beds', 'Raised beds'],
    ['# Title #', 'Title'],
    ['C# and F# notes', 'C# and F# notes'],
    ['- [Rename The Current Session](tmux/rename-the-current-session.md)', 'Rename The Current Session'],
    ['1. first\n2) second', 'first\nsecond'],
    ['- [ ] buy eggs\n- [x] call mum', 'buy eggs\ncall mum'],
    ['> quoted **bold** text', 'quoted bold text'],
    ['use `git add -u` here', 'use git add -u here'],
    ['a ``code with ` tick`` b', 'a code with ` tick b'],
    ['*em* and _em_ and snake_case_name', 'em and em and snake_case_name'],
    ['2 * 3 * 4', '2 * 3 * 4'],
    ['~~gone~~ and ==marked==', 'gone and marked'],
    ['see [[sqlite-wal|SQLite WAL]] and [[Postgres timeouts]]', 'see SQLite WAL and Postgres timeouts'],
    ['[[Garden plan#Tomatoes]]', 'Garden plan › Tomatoes'],
    ['![diagram](img/a.png) below', 'diagram below'],
    ['read [the docs][docs] now[^1]', 'read the docs now'],
    ['<https://sqlite.org/wal.html>', 'https://sqlite.org/wal.html'],
    ['line<br>break <span class="x">in</span> html', 'linebreak in html'],
    ['| a | b |\n|---|:---:|\n| 1 | 2 |', 'a · b\n1 · 2'],
    ['text\n\n---\n\nmore', 'text\n\nmore'],
    ['escaped \\*not em\\*', 'escaped *not em*'],
    ['```sql\nselect * from t | x;\n```', 'select * from t | x;'],
    ['````md\n```\n# not a heading\n```\n````', '```\n# not a heading\n```'],
  ];
  for (const [markdown, read] of cases) {
    it(`reads ${JSON.stringify(markdown)} as ${JSON.stringify(read)}`, () => {
      assert.equal(plainText(markdown), read);
    });
  }
});
