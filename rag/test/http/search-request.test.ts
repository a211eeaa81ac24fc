import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../../src/http/api-errors.js';
import { parseSearchRequest } from '../../src/http/search-request.js';

const VAULTS = ['handbook', 'ops'];
const VECTORS = { vectors: true };
const LEXICAL_ONLY = { vectors: false };

describe('POST /search request validation', () => {
  it('applies the documented defaults: hybrid where there are vectors, lexical where there are none', () => {
    assert.deepEqual(parseSearchRequest({ query: 'keys' }, VAULTS, VECTORS), {
      query: 'keys',
      top: 8,
      vaults: undefined,
      namespaces: undefined,
      mode: 'hybrid',
      mmr: false,
      mmrLambda: 0.7,
    });
    assert.equal(parseSearchRequest({ query: 'keys' }, VAULTS, LEXICAL_ONLY).mode, 'lexical');
  });

  it('accepts every field at its limits', () => {
    const parsed = parseSearchRequest(
      { query: 'k', top: 50, vaults: ['ops', 'ops'], namespaces: [''], mode: 'dense', mmr: true, mmr_lambda: 0 },
      VAULTS,
      VECTORS,
    );
    assert.deepEqual(parsed, {
      query: 'k',
      top: 50,
      vaults: ['ops'],
      namespaces: [''],
      mode: 'dense',
      mmr: true,
      mmrLambda: 0,
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

  const REFUSED: readonly [string, unknown, string, RegExp, { vectors: boolean }?][] = [
    ['a JSON array', [], 'invalid_json', /JSON object/],
    ['null', null, 'invalid_json', /JSON object/],
    ['a missing query', {}, 'invalid_field', /^query: must be a non-empty string$/],
    ['an empty query', { query: '' }, 'invalid_field', /^query:/],
    ['a blank query', { query: ' \n ' }, 'invalid_field', /^query:/],
    ['a numeric query', { query: 5 }, 'invalid_field', /^query:/],
    ['top 0', { query: 'q', top: 0 }, 'invalid_field', /^top: must be an integer from 1 to 50$/],
    ['top 51', { query: 'q', top: 51 }, 'invalid_field', /^top:/],
    ['top 2.5', { query: 'q', top: 2.5 }, 'invalid_field', /^top:/],
    ['top as a string', { query: 'q', top: '8' }, 'invalid_field', /^top:/],
    [
      'an unknown field',
      { query: 'q', collection: 'ops' },
      'unknown_field',
      /^unknown field "collection" \(allowed: query, top, vaults, namespaces, mode, hybrid/,
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
      'invalid_field',
      /^vaults: must be a non-empty list of strings$/,
    ],
    ['an empty vault list', { query: 'q', vaults: [] }, 'invalid_field', /^vaults:/],
    ['a numeric namespace', { query: 'q', namespaces: [1] }, 'invalid_field', /^namespaces:/],
    [
      'an unknown mode',
      { query: 'q', mode: 'semantic' },
      'invalid_field',
      /^mode: must be one of hybrid, dense, lexical$/,
    ],
    ['mode as a boolean', { query: 'q', mode: true }, 'invalid_field', /^mode:/],
    [
      'mode lexical with hybrid: true',
      { query: 'q', mode: 'lexical', hybrid: true },
      'invalid_field',
      /^mode: "lexical" contradicts hybrid: true \(hybrid: true is mode "hybrid", false is mode "dense"\)$/,
    ],
    [
      'mode hybrid with hybrid: false',
      { query: 'q', mode: 'hybrid', hybrid: false },
      'invalid_field',
      /^mode: "hybrid" contradicts hybrid: false/,
    ],
    ['hybrid as a string', { query: 'q', hybrid: 'yes' }, 'invalid_field', /^hybrid: must be true or false$/],
    ['mmr as a number', { query: 'q', mmr: 1 }, 'invalid_field', /^mmr:/],
    [
      'mmr_lambda above 1',
      { query: 'q', mmr_lambda: 1.01 },
      'invalid_field',
      /^mmr_lambda: must be a number from 0 to 1$/,
    ],
    ['mmr_lambda below 0', { query: 'q', mmr_lambda: -0.1 }, 'invalid_field', /^mmr_lambda:/],
    ['mmr_lambda as a string', { query: 'q', mmr_lambda: '0.5' }, 'invalid_field', /^mmr_lambda:/],
    [
      'mode dense on an index without vectors',
      { query: 'q', mode: 'dense' },
      'invalid_field',
      /^mode: "dense" needs vectors, and this index has no vectors \(embed_model: none\); use mode "lexical"$/,
      LEXICAL_ONLY,
    ],
    [
      'mode hybrid on an index without vectors',
      { query: 'q', mode: 'hybrid' },
      'invalid_field',
      /^mode: "hybrid" needs vectors/,
      LEXICAL_ONLY,
    ],
    [
      'hybrid: true on an index without vectors',
      { query: 'q', hybrid: true },
      'invalid_field',
      /^hybrid: mode "hybrid" needs vectors/,
      LEXICAL_ONLY,
    ],
    [
      'hybrid: false on an index without vectors',
      { query: 'q', hybrid: false },
      'invalid_field',
      /^hybrid: mode "dense" needs vectors/,
      LEXICAL_ONLY,
    ],
    [
      'mmr on an index without vectors',
      { query: 'q', mode: 'lexical', mmr: true },
      'invalid_field',
      /^mmr: needs vectors, and this index has no vectors/,
      LEXICAL_ONLY,
    ],
  ];
  for (const [label, body, code, message, capabilities = VECTORS] of REFUSED) {
    it(`refuses ${label} with 400 ${code}`, () => {
      assert.throws(
        () => parseSearchRequest(body, VAULTS, capabilities),
        (err: unknown) =>
          err instanceof ApiError && err.status === 400 && err.code === code && message.test(err.message),
      );
    });
  }
});
