import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { NO_MODEL } from '../../src/config/models.js';
import { IndexStore } from '../../src/store/index-store.js';
import { loadVectorMatrix } from '../../src/store/load-vectors.js';
import { openDatabase } from '../../src/store/open-database.js';
import { sortPostingsByRow } from '../../src/words/row-order.js';
import { prepareWordVocabulary } from '../../src/words/word-index-build.js';
import { readWordPostings } from '../../src/words/word-postings-reader.js';
import { fileRecord, tempDir } from '../../test-support/fixtures.js';

/** Per term, its (row, frequency) postings in their order. */
function listed(offsets: Uint32Array, rows: Uint32Array, frequencies: Uint16Array | Uint32Array): number[][][] {
  return Array.from({ length: offsets.length - 1 }, (_, t) => {
    const list: number[][] = [];
    for (let i = offsets[t] ?? 0; i < (offsets[t + 1] ?? 0); i += 1) list.push([rows[i] ?? -1, frequencies[i] ?? -1]);
    return list;
  });
}

describe('sortPostingsByRow', () => {
  // [case, per term its postings as given: `row:frequency`, terms apart by `|`]
  const cases: readonly (readonly [string, string])[] = [
    ['no terms', ''],
    ['a term with no postings, then one with one', ' | 3:7'],
    ['already ascending: left as it is', '0:1 2:2 5:3'],
    ['descending', '5:1 2:2 0:3'],
    ['two row ranges interleaved (chunk id order)', '0:1 4:2 1:3 5:4 2:5 | 4:9 0:8'],
    ['one out of order among sorted terms, its frequencies wide', '1:1 3:1 | 3:2 1:70000 | 0:5 5:6'],
  ];
  for (const [name, given] of cases) {
    it(`lists each term's rows ascending, each with its own frequency: ${name}`, () => {
      const terms =
        given === ''
          ? []
          : given.split('|').map((term) =>
              term
                .trim()
                .split(' ')
                .filter(Boolean)
                .map((posting) => posting.split(':').map(Number)),
            );
      const all = terms.flat();
      const offsets = Uint32Array.from([0, ...terms.map((_, t) => terms.slice(0, t + 1).flat().length)]);
      const rows = Uint32Array.from(all, ([row]) => row ?? -1);
      const asGiven = all.map(([, f]) => f ?? -1);
      const frequencies = asGiven.some((f) => f > 0xffff) ? Uint32Array.from(asGiven) : Uint16Array.from(asGiven);
      const lengths = new Uint32Array(6).fill(9);
      sortPostingsByRow({ offsets, rows, frequencies, lengths });
      const expected = terms.map((list) => [...list].sort((a, b) => (a[0] ?? 0) - (b[0] ?? 0)));
      assert.deepEqual(listed(offsets, rows, frequencies), expected);
      assert.deepEqual(Array.from(lengths), [9, 9, 9, 9, 9, 9], 'row lengths untouched');
    });
  }

  it('is what the word table is read as, where vaults interleave chunk ids', (t) => {
    // Notes alternate between two vaults, so chunk ids alternate while rows are grouped by vault.
    const file = path.join(tempDir(t), 'index.sqlite');
    const store = IndexStore.open(file, { model: NO_MODEL, nowMs: 1 });
    for (let n = 0; n < 12; n += 1) {
      const text = `common words ${n % 3 === 0 ? 'third' : 'other'} note${n}`;
      const chunk = { seq: 0, heading: '', lineStart: 1, lineEnd: 1, text, tokenCount: 1, vector: new Float32Array(0) };
      store.replaceFile(fileRecord(`n${n}.md`, { vault: n % 2 === 0 ? 'a' : 'b', aliases: [] }), [chunk], 1);
    }
    store.finishRun('', '{}', 2);
    store.close();
    const db = openDatabase(file, { reader: true });
    t.after(() => db.close());
    prepareWordVocabulary(db);
    db.exec('BEGIN');
    const { chunkIds } = loadVectorMatrix(db, 0);
    assert.ok(
      chunkIds.some((id, row) => row > 0 && id < (chunkIds[row - 1] ?? 0)),
      'the rows are not in chunk id order',
    );
    const postings = readWordPostings(db, chunkIds);
    const shared = postings.range('common', false);
    for (let term = 0; term < postings.terms.length; term += 1) {
      const rows = Array.from(postings.rows.subarray(postings.offsets[term], postings.offsets[term + 1]));
      assert.deepEqual(
        rows,
        [...rows].sort((a, b) => a - b),
        `${postings.terms[term]}: rows ascending`,
      );
    }
    assert.equal(postings.postingCount(shared), 12, 'every note holds "common"');
  });
});
