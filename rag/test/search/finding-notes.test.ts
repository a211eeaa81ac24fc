import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import { runIndex } from '../../src/indexer/run-index.js';
import type { SearchOptions } from '../../src/search/hybrid-search.js';
import { openIndex } from '../../src/search/search-index.js';
import { checkSearchRequest } from '../../src/search/search-request.js';
import { MINILM, sharedEmbedder, workspace } from '../../test-support/fixtures.js';
import { indexOptions } from '../../test-support/run.js';
import { testModelCache } from '../../test-support/test-model/test-model.js';

/** An Obsidian-style vault: tags (one nested), an outline of headings, frontmatter alone, a long note. */
const NOTES = {
  'recipes/shakshuka.md':
    '---\ntags: [recipe, Breakfast]\n---\n# Shakshuka\n\nCrack four eggs into the simmering tomatoes.\n',
  'recipes/soup.md': '---\ntags: [recipe, dinner]\n---\n# Lentil soup\n\nRed lentils, stock and lemon.\n',
  'journal/saturday.md': '---\ntags: [journal]\n---\n# Saturday\n\nBought eggs and kale at the market.\n',
  'projects/garden.md': '---\ntags: [project/garden]\n---\n# Garden plan\n\n## Raised beds\n\n### Drip irrigation\n',
  'people/ada.md': '---\ntitle: Ada Lovelace\naliases: [Countess of Lovelace]\ntags: [people]\n---\n',
  'long.md': `# Long note\n\n## First part\n\n${'The first part is about eggs. '.repeat(20)}\n\n## Second part\n\n${'The second part is about kale. '.repeat(20)}\n`,
};

async function searchable(t: TestContext) {
  const ws = workspace(t, { life: NOTES }, MINILM);
  await runIndex(indexOptions(ws));
  const index = await openIndex({
    indexPath: ws.config.indexPath,
    model: ws.config.model,
    modelCacheDir: testModelCache(),
    loadEmbedder: (model) => sharedEmbedder(model.id),
  });
  t.after(() => index.close());
  // Every search goes through the one request check, as at every door.
  const search = async (body: Record<string, unknown>) => {
    const checked = checkSearchRequest(body, { vaults: ['life'], vectors: true });
    if (!checked.ok) throw new Error(checked.problem);
    const request: SearchOptions = checked.request;
    return (await index.search(request)).hits;
  };
  const paths = async (body: Record<string, unknown>) => (await search(body)).map((hit) => hit.path);
  return { search, paths };
}

describe('finding notes', () => {
  it('finds a note by a frontmatter tag its text never mentions', async (t) => {
    const { paths } = await searchable(t);
    assert.deepEqual(await paths({ query: 'breakfast', mode: 'lexical' }), ['recipes/shakshuka.md']);
  });

  it('filters by tag before the cut, on both legs: case, a leading # and nested tags as Obsidian has them', async (t) => {
    const { paths } = await searchable(t);
    for (const mode of ['lexical', 'dense', 'hybrid']) {
      const eggs = await paths({ query: 'eggs', mode, tags: ['#Recipe'], top: 50 });
      assert.deepEqual(
        eggs.sort(),
        mode === 'lexical' ? ['recipes/shakshuka.md'] : ['recipes/shakshuka.md', 'recipes/soup.md'],
      );
      assert.deepEqual(await paths({ query: 'raised beds', mode, tags: ['project'], top: 50 }), ['projects/garden.md']);
      assert.deepEqual(await paths({ query: 'eggs', mode, tags: ['nowhere'] }), []);
    }
    const either = await paths({ query: 'eggs', mode: 'lexical', tags: ['journal', 'breakfast'] });
    assert.deepEqual(either.sort(), ['journal/saturday.md', 'recipes/shakshuka.md']);
  });

  it('finds a note that is only headings by its headings, and one that is only frontmatter by an alias', async (t) => {
    const { search } = await searchable(t);
    const [garden] = await search({ query: 'drip irrigation', mode: 'lexical' });
    assert.equal(garden?.path, 'projects/garden.md');
    assert.deepEqual([garden?.lineStart, garden?.lineEnd], [4, 8]);
    const [ada] = await search({ query: 'Countess of Lovelace', mode: 'lexical' });
    assert.deepEqual(
      [ada?.path, ada?.title, ada?.lineStart, ada?.lineEnd, ada?.text],
      ['people/ada.md', 'Ada Lovelace', 1, 5, ''],
    );
  });

  it('returns whole notes with files: each note once, at its best chunk, with all its text and lines', async (t) => {
    const { search } = await searchable(t);
    const chunks = await search({ query: 'eggs kale part', mode: 'lexical', top: 50 });
    const fromLong = chunks.filter((hit) => hit.path === 'long.md');
    assert.equal(fromLong.length, 2, 'the long note is two chunks');
    const notes = await search({ query: 'eggs kale part', mode: 'lexical', top: 50, files: true });
    assert.deepEqual(
      notes.map((hit) => hit.path),
      [...new Set(chunks.map((hit) => hit.path))],
      'the order of each note’s best chunk',
    );
    const long = notes.find((hit) => hit.path === 'long.md');
    // Its chunks in order, a blank line between: the heading that opens a chunk is in its trail, not its text.
    assert.deepEqual([long?.lineStart, long?.lineEnd], [5, 9]);
    assert.match(long?.text ?? '', /^The first part is about eggs\.[^\n]*\n\nThe second part is about kale\./);
    assert.equal(long?.score, chunks.find((hit) => hit.path === 'long.md')?.score);
    assert.equal((await search({ query: 'eggs kale part', mode: 'hybrid', top: 1, files: true })).length, 1);
  });
});
