import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { seededRandom } from '@notegate/kit/testing';
import { NO_MODEL } from '../../src/config/models.js';
import { queryTerms } from '../../src/lexical/query-terms.js';
import { lexicalLeg } from '../../src/search/lexical-leg.js';
import { IndexSnapshot } from '../../src/snapshot/index-snapshot.js';
import { IndexStore, type StoredChunk } from '../../src/store/index-store.js';
import type { MemoryWords } from '../../src/words/memory-words.js';
import type { ChunkScope } from '../../src/words/word-ranking.js';
import { fileRecord, tempDir } from '../../test-support/fixtures.js';

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
 * vault unchanged (exact score ties).
 */
function writeCorpus(file: string, seed: number, layout: 'auto' | 'words'): void {
  const random = seededRandom(seed);
  const store = IndexStore.open(file, { model: NO_MODEL, nowMs: 1, lexicalLayout: layout });
  const write = (f: number, vault = VAULTS[f % VAULTS.length] ?? 'big', chunks = chunksOf(random, 1 + (f % 4))) => {
    const title = text(random, 1 + (f % 3));
    const tags = TAGS[f % TAGS.length] ?? [];
    store.replaceFile(fileRecord(`n${f}.md`, { vault, namespace: `ns${f % 3}`, title, aliases: [], tags }), chunks, 1);
    return chunks;
  };
  const copies = new Map<number, StoredChunk[]>();
  for (let f = 0; f < 90; f += 1) copies.set(f, write(f));
  for (let f = 0; f < 90; f += 7) write(f);
  store.removeFiles(store.fileIdsOfVault('mid').slice(0, 4));
  const last = store.fileRows('small');
  store.removeFiles([...last.values()].map((row) => row.id).slice(-2));
  for (let f = 90; f < 96; f += 1) write(f);
  for (let f = 0; f < 10; f += 1) write(f, 'copy', copies.get(f));
  store.finishRun('', '{}', 2);
  store.close();
}

/** The same index opened twice: the word tier from memory (once built) and in SQLite. */
async function bothWays(t: TestContext, seed: number, layout: 'auto' | 'words') {
  const file = path.join(tempDir(t), 'index.sqlite');
  writeCorpus(file, seed, layout);
  const memory = await IndexSnapshot.open(file, NO_MODEL, Date.now);
  const sqlite = await IndexSnapshot.open(file, NO_MODEL, Date.now, undefined, { memoryWords: false });
  t.after(() => {
    memory.close();
    sqlite.close();
  });
  await memory.wordIndexSettled();
  const state = memory.wordIndex;
  assert.equal(state.kind, 'ready', state.kind === 'unavailable' ? state.reason : '');
  assert.equal(memory.lexical.scoring, 'memory');
  assert.equal(sqlite.lexical.scoring, 'sqlite');
  if (state.kind !== 'ready') throw new Error('unreachable');
  return { memory, sqlite, words: state.words, ngrams: layout === 'auto' };
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
  for (const [layout, seed] of [
    ['auto', 11],
    ['auto', 12],
    ['words', 13],
  ] as const) {
    it(`gives FTS5's document frequencies and bm25 ranking to the last bit (layout ${layout}, corpus ${seed})`, async (t) => {
      const { sqlite, words, ngrams } = await bothWays(t, seed, layout);
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
    const { memory, sqlite } = await bothWays(t, 21, 'auto');
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
          const expected = lexicalLeg(query, depth, sqlite.lexical, inSqlite);
          assert.deepEqual(lexicalLeg(query, depth, memory.lexical, inMemory), expected, query);
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
    const snapshot = await IndexSnapshot.open(file, NO_MODEL, Date.now);
    t.after(() => snapshot.close());
    await snapshot.wordIndexSettled();
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
  const state = snapshot.wordIndex;
  if (state.kind !== 'ready') throw new Error(`word index ${state.kind}`);
  return state.words;
}
