import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_INDEX_PATH, parseVaultsConfig } from '../../src/config/parse-config.js';

function problemsOf(value: unknown): readonly string[] {
  const parsed = parseVaultsConfig(value);
  return 'problems' in parsed ? parsed.problems : [];
}

const vault = { id: 'handbook', path: 'demo/vaults/handbook' };

describe('parseVaultsConfig', () => {
  it('applies the documented defaults', () => {
    const parsed = parseVaultsConfig({ vaults: [vault] });
    assert.ok(!('problems' in parsed));
    assert.equal(parsed.model.id, 'intfloat/multilingual-e5-small');
    assert.equal(parsed.model.dimension, 384);
    assert.equal(parsed.allowedRoots, undefined);
    assert.equal(parsed.indexPath, DEFAULT_INDEX_PATH);
  });

  it('names unknown keys at the top level and inside a vault, with the allowed keys', () => {
    const problems = problemsOf({ vaults: [vault, { ...vault, id: 'two', ignore: ['x'] }], embed_modle: 'x' });
    assert.ok(
      problems.includes('embed_modle: unknown key (allowed: embed_model, allowed_roots, index_path, exclude, vaults)'),
    );
    assert.ok(problems.includes('vaults[1].ignore: unknown key (allowed: id, path, exclude)'));
  });

  it('refuses a duplicate vault id, naming the second entry', () => {
    assert.deepEqual(problemsOf({ vaults: [vault, { id: 'handbook', path: 'other' }] }), [
      'vaults[1].id: duplicate vault id "handbook"',
    ]);
  });

  it('refuses malformed vault ids with the pattern', () => {
    for (const id of ['Handbook', '-x', '', 'a b', 'x'.repeat(65), 'ü']) {
      const problems = problemsOf({ vaults: [{ id, path: 'p' }] });
      assert.equal(problems.length, 1, id);
      assert.match(problems[0] ?? '', /^vaults\[0\]\.id: /);
    }
    assert.deepEqual(problemsOf({ vaults: [{ id: `a${'-'.repeat(63)}`, path: 'p' }] }), []);
  });

  it('refuses a model outside the whitelist and lists the whitelist (no silent downgrade)', () => {
    const [problem] = problemsOf({ embed_model: 'intfloat/e5-small', vaults: [vault] });
    assert.equal(
      problem,
      'embed_model: "intfloat/e5-small" is not whitelisted (allowed: intfloat/multilingual-e5-small, ' +
        'sentence-transformers/all-MiniLM-L6-v2, intfloat/multilingual-e5-base, intfloat/multilingual-e5-large, ' +
        'or none (no embeddings: a lexical-only index))',
    );
  });

  it('reports every problem at once', () => {
    const problems = problemsOf({ allowed_roots: [], vaults: [{ id: 'A' }, 'x'], index_path: 3 });
    assert.deepEqual(problems, [
      'allowed_roots: must be a non-empty list of folder paths',
      'index_path: must be a non-empty string',
      'vaults[0].path: must be a non-empty string',
      'vaults[0].id: "A" is not a valid vault id (must match ^[a-z0-9][a-z0-9_-]{0,63}$)',
      'vaults[1]: must be an object with "id" and "path"',
    ]);
  });

  it('needs at least one vault and an object', () => {
    assert.deepEqual(problemsOf({ vaults: [] }), ['vaults: must be a non-empty list of { "id", "path" } objects']);
    assert.deepEqual(problemsOf([]), ['the config must be a JSON object']);
  });

  it("compiles the exclude globs of the config and of each vault into the vault's rules", () => {
    const parsed = parseVaultsConfig({
      exclude: ['templates/**'],
      vaults: [vault, { id: 'two', path: 'p', exclude: ['*.excalidraw.md'] }],
    });
    assert.ok(!('problems' in parsed));
    const [first, second] = parsed.vaults;
    assert.deepEqual(first?.exclude.globs, ['templates/**']);
    assert.deepEqual(second?.exclude.globs, ['templates/**', '*.excalidraw.md']);
    assert.equal(second?.exclude.matches('drawings/plan.excalidraw.md', false), true);
    assert.equal(first?.exclude.matches('drawings/plan.excalidraw.md', false), false);
  });

  it('names every malformed exclude glob with its key, and a list that is not one', () => {
    assert.deepEqual(problemsOf({ exclude: ['ok/**', 'bad[', 'a**'], vaults: [{ ...vault, exclude: '*.tmp' }] }), [
      'exclude[1]: "bad[": has an unclosed [ at character 4',
      'exclude[2]: "a**": ** must be a whole path segment (a/**/b)',
      'vaults[0].exclude: must be a list of glob strings (such as "templates/**" or "*.excalidraw.md")',
    ]);
  });
});
