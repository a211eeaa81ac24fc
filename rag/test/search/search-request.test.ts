import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  checkSearchRequest,
  describeSearchProblem,
  type SearchRequest,
  type SearchRequestProblem,
} from '../../src/search/search-request.js';

const VAULTS = ['handbook', 'ops'];
const VECTORS = { vectors: true };
const LEXICAL_ONLY = { vectors: false };

/** The checked request; fails the test when the check refused it. */
function parseSearchRequest(
  body: unknown,
  vaults: readonly string[],
  capabilities: { vectors: boolean },
): SearchRequest {
  const checked = checkSearchRequest(body, { vaults, ...capabilities });
  if (!checked.ok) assert.fail(`refused: ${describeSearchProblem(checked)}`);
  return checked.request;
}

describe('the search request check', () => {
  it('applies the documented defaults: hybrid where there are vectors, lexical where there are none', () => {
    assert.deepEqual(parseSearchRequest({ query: 'keys' }, VAULTS, VECTORS), {
      query: 'keys',
      top: 8,
      vaults: undefined,
      namespaces: undefined,
      tags: undefined,
      mode: 'hybrid',
      mmr: false,
      mmrLambda: 0.7,
      files: false,
    });
    assert.equal(parseSearchRequest({ query: 'keys' }, VAULTS, LEXICAL_ONLY).mode, 'lexical');
  });

  it('accepts every field at its limits', () => {
    const parsed = parseSearchRequest(
      {
        query: 'k',
        top: 50,
        vaults: ['ops', 'ops'],
        namespaces: [''],
        tags: ['#recipe', 'project/garden'],
        mode: 'dense',
        mmr: true,
        mmr_lambda: 0,
        files: true,
      },
      VAULTS,
      VECTORS,
    );
    assert.deepEqual(parsed, {
      query: 'k',
      top: 50,
      vaults: ['ops'],
      namespaces: [''],
      tags: ['#recipe', 'project/garden'],
      mode: 'dense',
      mmr: true,
      mmrLambda: 0,
      files: true,
    });
    assert.equal(parseSearchRequest({ query: 'k', top: 1, mmr_lambda: 1 }, VAULTS, VECTORS).top, 1);
  });

  const MODES: readonly [string, Record<string, unknown>, 'hybrid' | 'dense' | 'lexical'][] = [
    ['mode hybrid', { mode: 'hybrid' }, 'hybrid'],
    ['mode dense', { mode: 'dense' }, 'dense'],
    ['mode lexical', { mode: 'lexical' }, 'lexical'],
    ['hybrid: true (the older spelling)', { hybrid: true }, 'hybrid'],
    ['hybrid: false', { hybrid: false }, 'dense'],
    ['mode and hybrid that agree', { mode: 'dense', hybrid: false }, 'dense'],
    ['mode hybrid with hybrid: true', { mode: 'hybrid', hybrid: true }, 'hybrid'],
  ];
  for (const [label, fields, mode] of MODES) {
    it(`reads ${label} as mode ${mode}`, () => {
      assert.equal(parseSearchRequest({ query: 'q', ...fields }, VAULTS, VECTORS).mode, mode);
    });
  }

  it('accepts mode lexical, and nothing that needs vectors, on an index without vectors', () => {
    assert.equal(parseSearchRequest({ query: 'q', mode: 'lexical' }, VAULTS, LEXICAL_ONLY).mode, 'lexical');
  });

  const REFUSED: readonly [string, unknown, SearchRequestProblem, RegExp, { vectors: boolean }?][] = [
    ['a JSON array', [], 'not_an_object', /JSON object/],
    ['null', null, 'not_an_object', /JSON object/],
    ['a missing query', {}, 'invalid_value', /^query: must be a non-empty string$/],
    ['an empty query', { query: '' }, 'invalid_value', /^query:/],
    ['a blank query', { query: ' \n ' }, 'invalid_value', /^query:/],
    ['a numeric query', { query: 5 }, 'invalid_value', /^query:/],
    ['top 0', { query: 'q', top: 0 }, 'invalid_value', /^top: must be an integer from 1 to 50$/],
    ['top 51', { query: 'q', top: 51 }, 'invalid_value', /^top:/],
    ['top 2.5', { query: 'q', top: 2.5 }, 'invalid_value', /^top:/],
    ['top as a string', { query: 'q', top: '8' }, 'invalid_value', /^top:/],
    [
      'an unknown field',
      { query: 'q', collection: 'ops' },
      'unknown_field',
      /^unknown field "collection" \(allowed: query, top, vaults, namespaces, tags, mode, hybrid, mmr, mmr_lambda, files\)$/,
    ],
    ['two unknown fields', { query: 'q', a: 1, b: 2 }, 'unknown_field', /^unknown fields "a", "b"/],
    [
      'an unknown vault',
      { query: 'q', vaults: ['ops', 'nope'] },
      'unknown_vault',
      /^unknown vault "nope" \(known: handbook, ops\)$/,
    ],
    [
      'vaults as a string',
      { query: 'q', vaults: 'ops' },
      'invalid_value',
      /^vaults: must be a non-empty list of strings$/,
    ],
    ['an empty vault list', { query: 'q', vaults: [] }, 'invalid_value', /^vaults:/],
    ['a numeric namespace', { query: 'q', namespaces: [1] }, 'invalid_value', /^namespaces:/],
    ['an empty tag list', { query: 'q', tags: [] }, 'invalid_value', /^tags: must be a non-empty list of strings$/],
    ['a tag as a string', { query: 'q', tags: 'recipe' }, 'invalid_value', /^tags: must be a non-empty list/],
    ['a tag with a space', { query: 'q', tags: ['two words'] }, 'invalid_value', /^tags: "two words" is not a tag/],
    ['a tag of only #', { query: 'q', tags: ['#'] }, 'invalid_value', /^tags: "#" is not a tag \(such as/],
    ['files as a string', { query: 'q', files: 'yes' }, 'invalid_value', /^files: must be true or false$/],
    [
      'an unknown mode',
      { query: 'q', mode: 'semantic' },
      'invalid_value',
      /^mode: must be one of hybrid, dense, lexical$/,
    ],
    ['mode as a boolean', { query: 'q', mode: true }, 'invalid_value', /^mode:/],
    [
      'mode lexical with hybrid: true',
      { query: 'q', mode: 'lexical', hybrid: true },
      'invalid_value',
      /^mode: "lexical" contradicts hybrid: true \(hybrid: true is mode "hybrid", false is mode "dense"\)$/,
    ],
    [
      'mode hybrid with hybrid: false',
      { query: 'q', mode: 'hybrid', hybrid: false },
      'invalid_value',
      /^mode: "hybrid" contradicts hybrid: false/,
    ],
    ['hybrid as a string', { query: 'q', hybrid: 'yes' }, 'invalid_value', /^hybrid: must be true or false$/],
    ['mmr as a number', { query: 'q', mmr: 1 }, 'invalid_value', /^mmr:/],
    [
      'mmr_lambda above 1',
      { query: 'q', mmr_lambda: 1.01 },
      'invalid_value',
      /^mmr_lambda: must be a number from 0 to 1$/,
    ],
    ['mmr_lambda below 0', { query: 'q', mmr_lambda: -0.1 }, 'invalid_value', /^mmr_lambda:/],
    ['mmr_lambda as a string', { query: 'q', mmr_lambda: '0.5' }, 'invalid_value', /^mmr_lambda:/],
    [
      'mode dense on an index without vectors',
      { query: 'q', mode: 'dense' },
      'needs_vectors',
      /^mode: "dense" needs vectors, and this index has no vectors \(embed_model: none\); use mode "lexical"$/,
      LEXICAL_ONLY,
    ],
    [
      'mode hybrid on an index without vectors',
      { query: 'q', mode: 'hybrid' },
      'needs_vectors',
      /^mode: "hybrid" needs vectors/,
      LEXICAL_ONLY,
    ],
    [
      'hybrid: true on an index without vectors',
      { query: 'q', hybrid: true },
      'needs_vectors',
      /^hybrid: mode "hybrid" needs vectors/,
      LEXICAL_ONLY,
    ],
    [
      'hybrid: false on an index without vectors',
      { query: 'q', hybrid: false },
      'needs_vectors',
      /^hybrid: mode "dense" needs vectors/,
      LEXICAL_ONLY,
    ],
    [
      'mmr on an index without vectors',
      { query: 'q', mode: 'lexical', mmr: true },
      'needs_vectors',
      /^mmr: needs vectors, and this index has no vectors/,
      LEXICAL_ONLY,
    ],
  ];
  for (const [label, body, kind, message, capabilities = VECTORS] of REFUSED) {
    it(`refuses ${label} (${kind})`, () => {
      const checked = checkSearchRequest(body, { vaults: VAULTS, ...capabilities });
      assert.equal(checked.ok, false);
      if (checked.ok) return;
      assert.equal(checked.kind, kind);
      const text = describeSearchProblem(checked);
      assert.match(text, message);
      // The field is data, never read back out of the text.
      const named = /^([a-z_]+): /.exec(text)?.[1];
      if (named !== undefined) assert.equal(checked.field, named);
    });
  }
});
