import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  checkSearchRequest,
  describeSearchProblem,
  QUERY_MAX_CHARACTERS,
  QUERY_MAX_TERMS,
} from '../../src/search/search-request.js';
import { workspace } from '../../test-support/fixtures.js';
import { hitsOf, startSearchServer } from '../../test-support/serve.js';

const words = (count: number, word = 'key') => Array.from({ length: count }, () => word).join(' ');

const CONTEXT = { vaults: ['v'], vectors: true };

describe('query limits (the search request check)', () => {
  const accepted: [string, string][] = [
    ['1,000 characters', 'q'.repeat(QUERY_MAX_CHARACTERS)],
    ['64 terms', words(QUERY_MAX_TERMS)],
    ['1,000 characters outside the BMP (each counted once)', '𝔸'.repeat(QUERY_MAX_CHARACTERS)],
    ['64 terms with runs of spaces and a trailing newline', `  ${words(QUERY_MAX_TERMS).replaceAll(' ', ' \t ')}\n`],
  ];
  for (const [what, query] of accepted) {
    it(`accepts ${what}`, () => {
      const checked = checkSearchRequest({ query }, CONTEXT);
      assert.equal(checked.ok && checked.request.query, query);
    });
  }

  const refused: [string, string, RegExp][] = [
    ['1,001 characters', 'q'.repeat(QUERY_MAX_CHARACTERS + 1), /^query: must be at most 1000 characters$/],
    ['65 terms', words(QUERY_MAX_TERMS + 1), /^query: must be at most 64 terms \(words between spaces\)$/],
    ['a 60 KiB paste', 'x'.repeat(60 * 1024), /at most 1000 characters/],
  ];
  for (const [what, query, message] of refused) {
    it(`refuses ${what} as an invalid query naming the limit`, () => {
      const checked = checkSearchRequest({ query }, CONTEXT);
      assert.equal(checked.ok, false);
      if (checked.ok) return;
      assert.equal(checked.kind, 'invalid_value');
      assert.equal(checked.field, 'query');
      assert.match(describeSearchProblem(checked), message);
    });
  }
});

describe('notegate-rag serve under long queries', () => {
  const NOTES = Object.fromEntries(
    Array.from({ length: 20 }, (_, i) => [`n${i}.md`, `# Note ${i}\n\nRotate the signing keys, step ${i}.\n`]),
  );

  it('refuses a query over the cap with 400 invalid_field, naming the limit', async (t) => {
    const server = await startSearchServer(t, workspace(t, { notes: NOTES }));
    const reply = await server.search({ query: 'key '.repeat(300) });
    assert.equal(reply.status, 400);
    assert.deepEqual(reply.body, { error: 'invalid_field', message: 'query: must be at most 1000 characters' });
    const terms = await server.search({ query: words(65, 'k') });
    assert.deepEqual(terms.body, {
      error: 'invalid_field',
      message: 'query: must be at most 64 terms (words between spaces)',
    });
  });

  it('answers /health while 32 searches at the cap are still running', async (t) => {
    const server = await startSearchServer(t, workspace(t, { notes: NOTES }));
    const query = words(QUERY_MAX_TERMS, 'signing').slice(0, QUERY_MAX_CHARACTERS);
    let finished = 0;
    const searches = Array.from({ length: 32 }, async () => {
      const reply = await server.search({ query, top: 50 });
      finished++;
      return reply;
    });
    const health = await server.request({ path: '/health' });
    const finishedWhenHealthy = finished;
    assert.equal(health.status, 200);
    for (const reply of await Promise.all(searches)) assert.ok(hitsOf(reply).length > 0);
    assert.ok(finishedWhenHealthy < 32, `/health waited for all ${finishedWhenHealthy} searches`);
  });
});
