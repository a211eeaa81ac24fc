import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hasAnyTag, normalizeTag, tagProblem } from '../../src/chunk/tags.js';

describe('tags', () => {
  it('compares tags without a leading #, case and composition', () => {
    assert.equal(normalizeTag('#Recipe'), 'recipe');
    assert.equal(normalizeTag(' Caf\u0065\u0301 '), 'caf\u00e9');
  });

  // [a note's tags, the tags asked for, found]
  const cases: readonly (readonly [readonly string[], readonly string[], boolean])[] = [
    [['recipe', 'breakfast'], ['recipe'], true],
    [['Recipe'], ['recipe'], true],
    [['#recipe'], ['recipe'], true],
    [['project/garden'], ['project'], true],
    [['project/garden'], ['project/garden'], true],
    [['project'], ['project/garden'], false],
    [['projects'], ['project'], false],
    [['recipe'], ['dinner', 'recipe'], true],
    [[], ['recipe'], false],
  ];
  for (const [noteTags, wanted, found] of cases) {
    it(`${JSON.stringify(noteTags)} ${found ? 'has' : 'has not'} one of ${JSON.stringify(wanted)}`, () => {
      assert.equal(hasAnyTag(noteTags, wanted.map(normalizeTag)), found);
    });
  }

  it('refuses what cannot be a tag, naming it', () => {
    assert.equal(tagProblem('recipe'), undefined);
    assert.equal(tagProblem('#project/garden'), undefined);
    assert.equal(tagProblem('#'), '"#" is not a tag (such as "recipe" or "project/garden")');
    assert.equal(tagProblem('project/'), '"project/" is not a tag (such as "recipe" or "project/garden")');
    assert.equal(tagProblem('two words'), '"two words" is not a tag: a tag has no spaces');
  });
});
