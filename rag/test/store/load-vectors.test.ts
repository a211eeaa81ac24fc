import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { IndexStore } from '../../src/store/index-store.js';
import { loadVectorMatrix } from '../../src/store/load-vectors.js';
import { openDatabase } from '../../src/store/open-database.js';
import { decodeVector, encodeVector } from '../../src/store/vector-codec.js';
import { fileRecord, MINILM, model, tempDir } from '../../test-support/fixtures.js';

const vector = (seed: number) => Float32Array.from({ length: 384 }, (_, i) => Math.sin(seed * 1000 + i));

describe('vector storage', () => {
  it('stores little-endian float32 bytes that decode to the same vector', () => {
    const v = vector(1);
    const bytes = encodeVector(v);
    assert.equal(bytes.length, 384 * 4);
    assert.equal(bytes.readFloatLE(4), v[1]);
    assert.deepEqual(decodeVector(bytes), v);
  });

  it('loads every vector into one array grouped by vault and namespace, with partitions for filters', (t) => {
    const file = path.join(tempDir(t), 'index.sqlite');
    const store = IndexStore.open(file, { model: model(MINILM), nowMs: 0 });
    const files = [
      { vault: 'a', namespace: 'eng', seeds: [1, 2] },
      { vault: 'b', namespace: '', seeds: [3] },
      { vault: 'a', namespace: 'ops', seeds: [4] },
    ];
    files.forEach((f, i) => {
      store.replaceFile(
        fileRecord(`${f.namespace}/n${i}.md`, { vault: f.vault, namespace: f.namespace }),
        f.seeds.map((seed, seq) => ({
          seq,
          heading: '',
          lineStart: 1,
          lineEnd: 1,
          text: `s${seed}`,
          tokenCount: 1,
          vector: vector(seed),
        })),
        0,
      );
    });
    store.close();
    const db = openDatabase(file, { readonly: true });
    const matrix = loadVectorMatrix(db, 384);
    db.close();
    assert.equal(matrix.count, 4);
    assert.equal(matrix.data.length, 4 * 384);
    assert.deepEqual(matrix.partitions, [
      { vault: 'a', namespace: 'eng', start: 0, end: 2 },
      { vault: 'a', namespace: 'ops', start: 2, end: 3 },
      { vault: 'b', namespace: '', start: 3, end: 4 },
    ]);
    assert.deepEqual(
      Array.from({ length: matrix.count }, (_, i) => matrix.data[i * 384]),
      [1, 2, 4, 3].map((seed) => vector(seed)[0]),
    );
    assert.deepEqual(Array.from(matrix.data.subarray(384, 768)), Array.from(vector(2)));
    assert.deepEqual(Array.from(matrix.chunkIds), [1, 2, 4, 3]);
  });
});
