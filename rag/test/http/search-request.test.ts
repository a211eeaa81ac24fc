import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../../src/http/api-errors.js';
import { parseSearchRequest, SEARCH_DEFAULTS } from '../../src/http/search-request.js';

const VAULTS = ['handbook', 'ops'];

describe('POST /search request validation', () => {
  it('applies the documented defaults', () => {
    assert.deepEqual(parseSearchRequest({ query: 'keys' }, VAULTS), {
      query: 'keys',
      top: 8,
      vaults: undefined,
      namespaces: undefined,
      hybrid: SEARCH_DEFAULTS.hybrid,
      mmr: false,
      mmrLambda: 0.7,
    });
  });

  it('accepts every field at its limits', () => {
    const parsed = parseSearchRequest(
      { query: 'k', top: 50, vaults: ['ops', 'ops'], namespaces: [''], hybrid: false, mmr: true, mmr_lambda: 0 },
      VAULTS,
    );
    assert.deepEqual(parsed, {
      query: 'k',
      top: 50,
      vaults: ['ops'],
      namespaces: [''],
      hybrid: false,
      mmr: true,
      mmrLambda: 0,
    });
    assert.equal(parseSearchRequest({ query: 'k', top: 1, mmr_lambda: 1 }, VAULTS).top, 1);
  });

  const REFUSED: readonly [string, unknown, string, RegExp][] = [
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
      /^unknown field "collection" \(allowed: query, top/,
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
  ];
  for (const [label, body, code, message] of REFUSED) {
    it(`refuses ${label} with 400 ${code}`, () => {
      assert.throws(
        () => parseSearchRequest(body, VAULTS),
        (err: unknown) =>
          err instanceof ApiError && err.status === 400 && err.code === code && message.test(err.message),
      );
    });
  }
});
