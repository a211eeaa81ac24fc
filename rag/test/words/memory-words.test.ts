import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { seededRandom } from '@notegate/kit/testing';
import { NO_MODEL } from '../../src/config/models.js';
import { queryTerms } from '../../src/lexical/query-terms.js';
import { lexicalLeg } from '../../src/search/lexical-leg.js';
import { IndexSnapshot } from '../../src/snapshot/index-snapshot.js';
import { SegmentWorker } from '../../src/snapshot/segment-worker-client.js';
import { IndexStore, type StoredChunk } from '../../src/store/index-store.js';
import type { MemoryWords } from '../../src/words/memory-words.js';
import type { ChunkScope } from '../../src/words/word-ranking.js';
import { fileRecord, tempDir } from '../../test-support/fixtures.js';
import { follow, install, mergeOf, type PendingMerge } from '../../test-support/segments.js';

/**
 * Words of several scripts: English inflections porter folds, diacritics, a lone combining mark (a
 * token that folding empties), Cyrillic, abugidas, identifiers.
 */
const WORDS = [
  ...'cell cells cellular rotate rotated rotation key keys signing sign protein proteins review budget'.split(' '),
  ...'Verkehrsberuhigung Straße Größe über Müller café cafe\u0301 naïve \u0303'.split(' '),
  ...'ключ ключи подпись белок клетка клетки'.split(' '),
  ...'हिन्दी भाषा ภาษาไทย ง่าย สวัสดี DEC-0054 IL-6 0054 2024'.split(' '),
];
/** Han characters, written without spaces: the word table holds their bigrams. */
const HAN = '分布式数据库系统的设计与实现我家小猫很可爱黑豹队防守';
/** In most chunks: terms whose IDF FTS5 clamps, and ties between equal chunks. */
const COMMON = ['the', 'of', 'and'];

function text(random: () => number, words: number): string {
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)] as T;
  const parts: string[] = [];
  for (let i = 0; i < words; i += 1) {
    const r = random();
    if (r < 0.45) parts.push(pick(COMMON));
    else if (r < 0.85) parts.push(pick(WORDS));
    else parts.push(Array.from({ length: 1 + Math.floor(random() * 6) }, () => pick([...HAN])).join(''));
  }
  return parts.join(random() < 0.3 ? ', ' : ' ');
}

function chunksOf(random: () => number, count: number): StoredChunk[] {
  return Array.from({ length: count }, (_, seq) => ({
    seq,
    heading: random() < 0.5 ? text(random, 2) : '',
    lineStart: seq + 1,
    lineEnd: seq + 1,
    text: text(random, 3 + Math.floor(random() * 40)),
    tokenCount: 1,
    vector: new Float32Array(0),
  }));
}

const VAULTS = ['big', 'big', 'big', 'mid', 'small'];
/** Frontmatter tags (docs/retrieval.md#tags), nested ones included. */
const TAGS: readonly (readonly string[])[] = [[], ['review'], ['Project/Alpha', 'budget'], [], ['project/beta']];

/**
 * A corpus written the way `index` writes it, one transaction per file, then
 * changed: files replaced and removed (FTS5 segments, tombstones, and chunk
 * ids reused after the last file goes), and some notes copied into another
 * vault unchanged (exact score ties). Each step is one transaction; the
 * last finishes the run.
 */
function corpusSteps(file: string, seed: number, layout: 'auto' | 'words'): (() => void)[] {
  const random = seededRandom(seed);
  const store = IndexStore.open(file, { model: NO_MODEL, nowMs: 1, lexicalLayout: layout });
  const write = (f: number, vault = VAULTS[f % VAULTS.length] ?? 'big', chunks = chunksOf(random, 1 + (f % 4))) => {
    const title = text(random, 1 + (f % 3));
    const tags = TAGS[f % TAGS.length] ?? [];
    store.replaceFile(fileRecord(`n${f}.md`, { vault, namespace: `ns${f % 3}`, title, aliases: [], tags }), chunks, 1);
    return chunks;
  };
  const copies = new Map<number, StoredChunk[]>();
  const steps: (() => void)[] = [];
  for (let f = 0; f < 90; f += 1) steps.push(() => copies.set(f, write(f)));
  for (let f = 0; f < 90; f += 7) steps.push(() => write(f));
  steps.push(() => store.removeFiles(store.fileIdsOfVault('mid').slice(0, 4)));
  steps.push(() => store.removeFiles([...store.fileRows('small').values()].map((row) => row.id).slice(-2)));
  for (let f = 90; f < 96; f += 1) steps.push(() => write(f));
  for (let f = 0; f < 10; f += 1) steps.push(() => write(f, 'copy', copies.get(f)));
  steps.push(() => {
    store.finishRun('', '{}', 2);
    store.close();
  });
  return steps;
}

/**
 * The word tier in memory: `whole`, the finished corpus loaded at once (one
 * segment); `followed`, a snapshot of its first 30 files that follows the
 * rest a few transactions at a time (a segment per step, rows deleted in
 * place), with merges of segments, each installed one step after it began,
 * so that rows deleted meanwhile are deleted in the merged segment.
 */
async function memorySnapshot(file: string, steps: readonly (() => void)[], how: 'whole' | 'followed') {
  if (how === 'whole') {
    for (const step of steps) step();
    return { snapshot: await IndexSnapshot.open(file, { model: NO_MODEL }), merges: 0 };
  }
  const worker = new SegmentWorker();
  try {
    const options = { model: NO_MODEL, worker };
    for (const step of steps.slice(0, 30)) step();
    let snapshot = await IndexSnapshot.open(file, options);
    let pending: PendingMerge | undefined;
    let merges = 0;
    for (const [i, step] of steps.slice(30).entries()) {
      step();
      if (i % 4 !== 3 && i !== steps.length - 31) continue;
      snapshot = await follow(file, snapshot, options);
      if (pending) {
        install(snapshot, pending);
        merges += 1;
      }
      const count = snapshot.segments.states.length;
      // In turn: the newest segments together, and the first with the newest; none once files are replaced
      // (i ≥ 60), so that the end state holds rows deleted in place.
      const merge = i % 8 === 3 ? [count - 3, count - 2, count - 1] : [0, count - 1];
      pending = count < 3 || i >= 60 ? undefined : mergeOf(snapshot, merge);
    }
    return { snapshot, merges };
  } finally {
    await worker.close();
  }
}

/** The same index opened twice: the word tier from memory and in SQLite. */
async function bothWays(t: TestContext, seed: number, layout: 'auto' | 'words', how: 'whole' | 'followed' = 'whole') {
  const file = path.join(tempDir(t), 'index.sqlite');
  const { snapshot: memory, merges } = await memorySnapshot(file, corpusSteps(file, seed, layout), how);
  const sqlite = await IndexSnapshot.open(file, { model: NO_MODEL, memoryWords: false });
  t.after(() => {
    memory.close();
    sqlite.close();
  });
  assert.equal(memory.lexical.scoring, 'memory');
  assert.equal(sqlite.lexical.scoring, 'sqlite');
  if (how === 'followed') {
    assert.ok(memory.segments.states.length > 1, 'several segments');
    assert.ok(memory.segments.deletedRows > 0, 'deleted rows');
    assert.ok(merges >= 5, `merges: ${merges}`);
  }
  return { memory, sqlite, words: ready(memory), ngrams: layout === 'auto' };
}

/** Queries: a few words of any script, a Han run or single character (a prefix term), a line of a chunk. */
function queries(seed: number, count: number): string[] {
  const random = seededRandom(seed);
  return Array.from({ length: count }, (_, i) => {
    if (i % 10 === 0) return [...HAN][Math.floor(random() * HAN.length)] ?? '猫';
    if (i % 10 === 1) return `"${text(random, 2)}" AND NOT (x*) NEAR`;
    return text(random, 1 + Math.floor(random() * 12));
  });
}

const EVERYWHERE: ChunkScope = { vaults: undefined, namespaces: undefined };
const SCOPES: readonly ChunkScope[] = [
  EVERYWHERE,
  { vaults: ['small'], namespaces: undefined },
  { vaults: ['big', 'copy'], namespaces: ['ns1'] },
  { vaults: undefined, namespaces: ['ns0', 'ns2'] },
  { vaults: ['nowhere'], namespaces: undefined },
];

describe('the in-memory word index', () => {
  for (const [layout, seed, how] of [
    ['auto', 11, 'whole'],
    ['auto', 12, 'whole'],
    ['words', 13, 'whole'],
    ['auto', 14, 'followed'],
    ['words', 15, 'followed'],
  ] as const) {
    it(`gives FTS5's document frequencies and bm25 ranking to the last bit (layout ${layout}, corpus ${seed}, ${how === 'whole' ? 'loaded whole' : 'followed in segments, with deletions and merges'})`, async (t) => {
      const { sqlite, words, ngrams } = await bothWays(t, seed, layout, how);
      let ranked = 0;
      for (const query of queries(seed, 120)) {
        const { terms } = queryTerms(query, { ngrams });
        const fromMemory = words.wordRanking(terms);
        assert.ok(fromMemory, `FTS5 makes one token of each term of ${query}`);
        const fromSqlite = sqlite.lexical.wordRanking(terms);
        for (const term of terms) {
          assert.equal(
            fromMemory.documentFrequency(term),
            fromSqlite.documentFrequency(term),
            `${query}: ${term.text}`,
          );
        }
        const matching = terms.filter((term) => fromSqlite.documentFrequency(term) > 0);
        if (matching.length === 0) continue;
        // The terms in query order, and reversed: a row's score is summed in phrase order.
        for (const chosen of [matching, [...matching].reverse(), [...matching, ...matching.slice(0, 1)]]) {
          for (const scope of SCOPES) {
            for (const limit of [100, 5]) {
              const expected = fromSqlite.rank(chosen, scope, limit);
              assert.deepEqual(fromMemory.rank(chosen, scope, limit), expected, `${query} in ${JSON.stringify(scope)}`);
              ranked += expected.length;
            }
          }
        }
      }
      assert.ok(ranked > 10_000, `the queries ranked ${ranked} chunks`);
    });
  }

  it('leaves the lexical leg unchanged, every tier, with and without filters', async (t) => {
    const { memory, sqlite } = await bothWays(t, 21, 'auto', 'followed');
    const tiers = new Set<string>();
    // Tag filters are resolved by each snapshot: files for SQLite, rows for the memory.
    const tagged = [
      { vaults: undefined, namespaces: undefined, tags: ['project'] },
      { vaults: ['big'], namespaces: ['ns1'], tags: ['review', 'project/alpha'] },
      { vaults: undefined, namespaces: undefined, tags: ['nowhere'] },
    ];
    const scopes = [
      ...SCOPES.map((scope) => ({ inMemory: scope, inSqlite: scope })),
      ...tagged.map((f) => ({
        inMemory: memory.filter(f.vaults, f.namespaces, f.tags).scope,
        inSqlite: sqlite.filter(f.vaults, f.namespaces, f.tags).scope,
      })),
    ];
    for (const query of [...queries(21, 80), 'DEC-0054', 'rotate signing keys', 'beruhigung', 'the of and']) {
      for (const { inMemory, inSqlite } of scopes) {
        for (const depth of [100, 10]) {
          const { wordScoring: inSqliteScoring, ...expected } = lexicalLeg(query, depth, sqlite.lexical, inSqlite);
          const { wordScoring: fromMemory, ...found } = lexicalLeg(query, depth, memory.lexical, inMemory);
          assert.deepEqual(found, expected, query);
          assert.deepEqual([fromMemory, inSqliteScoring], ['memory', 'sqlite']);
          for (const tier of expected.tiers) tiers.add(tier);
        }
      }
    }
    assert.deepEqual([...tiers].sort(), ['phrase', 'substrings', 'words']);
  });

  it('hands a term FTS5 reads as several tokens (a phrase) to SQLite', async (t) => {
    const { words } = await bothWays(t, 31, 'auto');
    const phrase = { text: 'rotate keys', prefix: false, kind: 'word' } as const;
    assert.equal(words.wordRanking([phrase]), undefined);
    assert.ok(words.wordRanking(queryTerms('rotate keys', { ngrams: true }).terms));
  });

  it('ranks an index of equal chunks by chunk id, as SQLite breaks ties', async (t) => {
    const file = path.join(tempDir(t), 'index.sqlite');
    const store = IndexStore.open(file, { model: NO_MODEL, nowMs: 1 });
    const same = chunksOf(seededRandom(5), 3);
    for (let f = 0; f < 40; f += 1) store.replaceFile(fileRecord(`n${f}.md`, { aliases: [] }), same, 1);
    store.finishRun('', '{}', 2);
    store.close();
    const snapshot = await IndexSnapshot.open(file, { model: NO_MODEL });
    t.after(() => snapshot.close());
    const words = ready(snapshot);
    const { terms } = queryTerms(same[0]?.text ?? '', { ngrams: true });
    const ranking = words.wordRanking(terms);
    const hits =
      ranking?.rank(
        terms.filter((term) => ranking.documentFrequency(term) > 0),
        EVERYWHERE,
        100,
      ) ?? [];
    assert.equal(hits.length, 100);
    const ties = hits.filter((hit) => hit.bm25 === hits[0]?.bm25).map((hit) => hit.chunkId);
    assert.ok(ties.length >= 40);
    assert.deepEqual(
      ties,
      [...ties].sort((a, b) => a - b),
    );
  });
});

function ready(snapshot: IndexSnapshot): MemoryWords {
  const { words } = snapshot;
  if (words === undefined) throw new Error('the word tier is ranked in SQLite');
  return words;
}
