import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { NO_MODEL } from '../../src/config/models.js';
import { lexicalLeg } from '../../src/search/lexical-leg.js';
import { IndexSnapshot } from '../../src/snapshot/index-snapshot.js';
import { IndexStore } from '../../src/store/index-store.js';
import type { ChunkScope } from '../../src/words/word-ranking.js';
import { fileRecord, tempDir } from '../../test-support/fixtures.js';

const EVERYWHERE: ChunkScope = { vaults: undefined, namespaces: undefined };

/** Notes by `vault/path` → body; one chunk each, title = the file name. */
type Notes = Readonly<Record<string, string>>;

/** Writes `notes` into the store, one chunk each. */
function writeNotes(store: IndexStore, notes: Notes): void {
  for (const [key, body] of Object.entries(notes)) {
    const [vault = '', name = ''] = key.split('/');
    store.replaceFile(
      fileRecord(name, { vault, title: name.replace(/\.md$/, ''), aliases: [] }),
      [{ seq: 0, heading: '', lineStart: 1, lineEnd: 1, text: body, tokenCount: 1, vector: new Float32Array(0) }],
      1,
    );
  }
}

/** A lexical-only index of `notes` (real SQLite file, real write path), opened as a snapshot. */
async function indexOf(
  t: TestContext,
  notes: Notes,
  lexicalLayout: 'auto' | 'words' = 'auto',
  options: { readonly memoryWords?: boolean } = {},
) {
  const file = path.join(tempDir(t), 'index.sqlite');
  const store = IndexStore.open(file, { model: NO_MODEL, nowMs: 1, lexicalLayout });
  writeNotes(store, notes);
  store.finishRun('', '{}', 2);
  store.close();
  const snapshot = await IndexSnapshot.open(file, { model: NO_MODEL, ...options });
  t.after(() => snapshot.close());
  const pathOf = new Map(
    snapshot
      .hitRows(snapshot.segments.states.flatMap((state) => Array.from(state.segment.matrix.chunkIds)))
      .map((hit) => [hit.chunkId, `${hit.vault}/${hit.path}`]),
  );
  const search = (query: string, depth = 10, scope = EVERYWHERE) => {
    const result = lexicalLeg(query, depth, snapshot.lexical, scope);
    return { paths: result.chunkIds.map((id) => pathOf.get(id)), tiers: result.tiers };
  };
  const corrected = (query: string) => ({
    ...search(query),
    corrections: lexicalLeg(query, 10, snapshot.lexical, EVERYWHERE).corrections,
  });
  return { snapshot, search, corrected };
}

/** Filler that makes every note share the stop words, as in real text. */
const THE = 'the of and the of and';

describe('lexical leg', () => {
  it('ranks by BM25 with OR semantics: a query whose words never occur together still finds each word', async (t) => {
    const { search } = await indexOf(t, {
      'v/a.md': `${THE} rotate signing keys every ninety days`,
      'v/b.md': `${THE} keys live in the vault`,
      'v/c.md': `${THE} unrelated text about lunch`,
      'v/d.md': `${THE} rotation schedule for certificates`,
    });
    // "rotate keys" is no phrase anywhere; porter folds rotate/rotation.
    const { paths, tiers } = search('How do I rotate keys?');
    assert.deepEqual(tiers, ['words']);
    assert.equal(paths[0], 'v/a.md', 'both words rank first');
    assert.deepEqual(paths.slice(1).sort(), ['v/b.md', 'v/d.md']);
  });

  it('puts chunks holding the exact phrase or identifier first, even against stronger BM25 matches', async (t) => {
    const { search } = await indexOf(t, {
      'v/dec.md': `${THE} the decision DEC-0054 was taken in March after a long review of the options`,
      'v/many.md': `${THE} DEC DEC DEC, see page 0054 0054 0054`,
      'v/other.md': `${THE} something else`,
      'v/keys.md': `${THE} keys signing rotate rotate rotate`,
      'v/phrase.md': `${THE} we rotate signing keys yearly`,
    });
    assert.deepEqual(search('DEC-0054'), { paths: ['v/dec.md', 'v/many.md'], tiers: ['phrase', 'words'] });
    assert.deepEqual(search('rotate signing keys'), {
      paths: ['v/phrase.md', 'v/keys.md'],
      tiers: ['phrase', 'words'],
    });
  });

  it('asks SQLite for the phrase only when some chunk holds every word of it, with the same result', async (t) => {
    const { snapshot } = await indexOf(t, {
      'v/keys.md': `${THE} rotate signing keys every month`,
      'v/other.md': `${THE} signing documents, rotate tyres`,
    });
    const phrases: string[] = [];
    const counting = {
      ...snapshot.lexical,
      layout: snapshot.lexical.layout,
      rowCount: snapshot.lexical.rowCount,
      wordRanking: snapshot.lexical.wordRanking.bind(snapshot.lexical),
      rankWords: (expression: string, scope: ChunkScope, limit: number) => {
        phrases.push(expression);
        return snapshot.lexical.rankWords(expression, scope, limit);
      },
      rankSubstrings: snapshot.lexical.rankSubstrings.bind(snapshot.lexical),
      substringFrequency: snapshot.lexical.substringFrequency.bind(snapshot.lexical),
      chunkTexts: snapshot.lexical.chunkTexts.bind(snapshot.lexical),
      nearestTerms: snapshot.lexical.nearestTerms.bind(snapshot.lexical),
      termOf: snapshot.lexical.termOf.bind(snapshot.lexical),
      mayMatchPhrase: snapshot.lexical.mayMatchPhrase.bind(snapshot.lexical),
      holdsSubstring: snapshot.lexical.holdsSubstring.bind(snapshot.lexical),
    };
    const held = lexicalLeg('rotate signing keys', 10, counting, EVERYWHERE);
    assert.deepEqual(held.tiers, ['phrase', 'words']);
    assert.equal(phrases.length, 1);
    // `monthly` is in no chunk: the phrase is not asked, and the words tier ranks as it would have.
    const unheld = lexicalLeg('rotate tyres monthly', 10, counting, EVERYWHERE);
    assert.equal(phrases.length, 1);
    const everyPhrase = lexicalLeg('rotate tyres monthly', 10, { ...counting, mayMatchPhrase: () => true }, EVERYWHERE);
    assert.equal(phrases.length, 2);
    assert.deepEqual(unheld, everyPhrase);
  });

  it('drops terms found in half the chunks or more (their IDF is clamped) unless nothing else matches', async (t) => {
    const { snapshot, search } = await indexOf(t, {
      'v/a.md': `${THE} alpha`,
      'v/b.md': `${THE} beta`,
      'v/c.md': `${THE} gamma`,
      'v/d.md': 'beta only',
      'v/e.md': 'epsilon',
      'v/f.md': 'delta',
    });
    assert.equal(snapshot.lexical.documentFrequency('"the"'), 3);
    // "the" is in 3 of 6 chunks: the query ranks as "beta" alone, and a.md/c.md (only "the") are not listed.
    assert.deepEqual(search('the beta').paths, search('beta').paths);
    assert.deepEqual(search('the beta').paths.sort(), ['v/b.md', 'v/d.md']);
    // A query of such terms only still ranks by them.
    assert.deepEqual(search('the of').paths.sort(), ['v/a.md', 'v/b.md', 'v/c.md']);
    assert.deepEqual(search('omega').paths, []);
  });

  it('appends substring matches (trigram table) below the word matches, only in the full layout', async (t) => {
    const notes = {
      'v/code.md': `${THE} the IndexSnapshot class holds a read transaction`,
      'v/word.md': `${THE} a snapshot of the state`,
      'v/other.md': `${THE} nothing to see`,
    };
    const full = await indexOf(t, notes);
    assert.deepEqual(full.search('snapshot'), { paths: ['v/word.md', 'v/code.md'], tiers: ['words', 'substrings'] });
    assert.deepEqual(
      full.search('snapshot', 1),
      { paths: ['v/word.md'], tiers: ['words'] },
      'a full list needs no substrings',
    );
    const fallback = await indexOf(t, notes, 'words');
    assert.deepEqual(fallback.search('snapshot'), { paths: ['v/word.md'], tiers: ['words'] });
  });

  it('finds Chinese by bigrams, a single character by prefix, and German word parts by substring', async (t) => {
    const { search } = await indexOf(t, {
      'v/zh.md': '分布式数据库系统的设计与实现',
      'v/cat.md': '我家的小猫很可爱',
      'v/de.md': 'Die Verkehrsberuhigung am Wochenende',
      'v/en.md': 'the database design',
    });
    assert.deepEqual(search('数据库').paths, ['v/zh.md']);
    assert.deepEqual(search('数据').paths, ['v/zh.md']);
    assert.deepEqual(search('猫').paths, ['v/cat.md']);
    assert.deepEqual(search('beruhigung'), { paths: ['v/de.md'], tiers: ['substrings'] });
  });

  it('applies the vault and namespace filter before the cut', async (t) => {
    const big = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`big/n${i}.md`, 'quarterly budget review']));
    const { search } = await indexOf(t, { ...big, 'tiny/a.md': `${'long filler text '.repeat(20)} quarterly budget` });
    assert.ok(search('quarterly budget', 10).paths.every((p) => p?.startsWith('big/')));
    assert.deepEqual(search('quarterly budget', 10, { vaults: ['tiny'], namespaces: undefined }).paths, ['tiny/a.md']);
    assert.deepEqual(search('quarterly budget', 10, { vaults: undefined, namespaces: ['elsewhere'] }).paths, []);
  });

  it('ranks the same notes the same way when every note is there twice (no cap changes the ranking)', async (t) => {
    const notes: Record<string, string> = {};
    for (let i = 0; i < 40; i += 1)
      notes[`one/n${i}.md`] = `${THE} note ${i} about ${i % 2 ? 'keys' : 'locks'} ${'x'.repeat(i % 7)}`;
    const once = await indexOf(t, notes);
    const twice = await indexOf(t, {
      ...notes,
      ...Object.fromEntries(Object.entries(notes).map(([k, v]) => [k.replace('one/', 'two/'), v])),
    });
    const names = (paths: readonly (string | undefined)[]) => [...new Set(paths.map((p) => p?.split('/')[1]))];
    for (const query of ['keys', 'the keys of note 7', 'locks and keys']) {
      assert.deepEqual(
        names(twice.search(query, 40).paths).slice(0, 10),
        names(once.search(query, 20).paths).slice(0, 10),
        query,
      );
    }
  });

  describe('typos', () => {
    const NOTES = {
      'v/sleep.md': `${THE} prevent sleep with the caffeinate command`,
      'v/stash.md': `${THE} git stash untracked files, then stash pop`,
      'v/rename.md': `${THE} tmux can rename the current session`,
      'v/code.md': `${THE} the IndexSnapshot class holds a read transaction`,
    };

    it('searches the nearest word of the index for a query word it does not hold, and says so', async (t) => {
      const { corrected: search } = await indexOf(t, NOTES);
      assert.deepEqual(search('caffinate'), {
        paths: ['v/sleep.md'],
        tiers: ['words'],
        corrections: [{ from: 'caffinate', to: 'caffeinate' }],
      });
      const typed = search('tmux Renmae sesion');
      assert.equal(typed.paths[0], 'v/rename.md');
      assert.deepEqual(typed.corrections, [
        { from: 'Renmae', to: 'rename' },
        { from: 'sesion', to: 'session' },
      ]);
      assert.deepEqual(search('git stahs').corrections, [{ from: 'stahs', to: 'stash' }]);
    });

    it('leaves alone words the index holds, as words or as substrings, and words with nothing near', async (t) => {
      const { corrected: search } = await indexOf(t, NOTES);
      assert.deepEqual(search('stash').corrections, []);
      assert.deepEqual(search('snapshot'), { paths: ['v/code.md'], tiers: ['substrings'], corrections: [] });
      assert.deepEqual(search('kubernetes'), { paths: [], tiers: [], corrections: [] });
      assert.deepEqual(search('gti').corrections, [], 'three letters: too ambiguous');
    });

    it('corrects the same from the in-memory word lists as from the trigram table in SQLite', async (t) => {
      const inMemory = await indexOf(t, NOTES);
      const inSqlite = await indexOf(t, NOTES, 'auto', { memoryWords: false });
      assert.equal(inMemory.snapshot.lexical.scoring, 'memory');
      assert.equal(inSqlite.snapshot.lexical.scoring, 'sqlite');
      for (const query of ['caffinate', 'tmux Renmae sesion', 'git stahs', 'stash', 'snapshot', 'kubernetes']) {
        assert.deepEqual(inMemory.corrected(query), inSqlite.corrected(query), query);
      }
    });

    it('takes the word in most chunks where several are as near, from memory as from SQLite', async (t) => {
      // `relase` is one edit from `release` (one chunk) and from `rebase` (two chunks); nothing else is asked.
      const notes = {
        'v/a.md': `${THE} the rebase command`,
        'v/b.md': `${THE} rebase again`,
        'v/c.md': `${THE} release notes`,
      };
      for (const memoryWords of [true, false]) {
        const { corrected: search } = await indexOf(t, notes, 'auto', { memoryWords });
        assert.deepEqual(search('relase').corrections, [{ from: 'relase', to: 'rebase' }], `memory: ${memoryWords}`);
      }
    });

    it('never corrects to a word that only deleted chunks hold', async (t) => {
      const file = path.join(tempDir(t), 'index.sqlite');
      const store = IndexStore.open(file, { model: NO_MODEL, nowMs: 1 });
      t.after(() => store.close());
      writeNotes(store, { ...NOTES, 'v/beans.md': `${THE} a mocha with coffee beans` });
      store.finishRun('', '{}', 2);
      const before = await IndexSnapshot.open(file, { model: NO_MODEL });
      assert.deepEqual(lexicalLeg('mochha', 10, before.lexical, EVERYWHERE).corrections, [
        { from: 'mochha', to: 'mocha' },
      ]);
      const beans = store.fileRows('v').get('beans.md');
      assert.ok(beans);
      store.removeFiles([beans.id]);
      store.finishRun('', '{}', 3);
      // Followed: the beans note's row is a deleted row of the loaded segment, its terms still listed there.
      const after = await IndexSnapshot.open(file, { model: NO_MODEL, previous: before });
      before.close();
      t.after(() => after.close());
      assert.equal(after.segments.deletedRows, 1);
      assert.equal(after.lexical.scoring, 'memory');
      assert.deepEqual(lexicalLeg('mochha', 10, after.lexical, EVERYWHERE).corrections, []);
    });

    it('corrects nothing in the fallback layout (no trigram table to find candidates with)', async (t) => {
      const { corrected: search } = await indexOf(t, NOTES, 'words');
      assert.deepEqual(search('caffinate'), { paths: [], tiers: [], corrections: [] });
    });
  });
});
