import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { workspace } from '../../test-support/fixtures.js';
import { hitsOf, startSearchServer, TEST_VERSION } from '../../test-support/serve.js';

const NOTES = {
  'de/strassen.md': '# Straßen\n\nDie Hauptstraße führt zum Bahnhof. Verkehrsberuhigung am Wochenende.\n',
  'zh/db.md': '# 数据\n\n分布式数据库系统的设计与实现。\n',
  'ops/keys.md':
    '# Keys\n\n## Rotation\n\nRotate the signing keys every ninety days.\n\n## Storage\n\nKeys live in the vault.\n',
  'readme.md': '# Readme\n\nAlpha release notes for DEC-0054.\n',
};

const HIT_FIELDS = [
  'vault',
  'path',
  'namespace',
  'title',
  'heading',
  'line_start',
  'line_end',
  'text',
  'snippet',
  'marks',
  'score',
  'dense_rank',
  'lexical_rank',
];

describe('notegate-rag serve HTTP API', () => {
  it('answers /health with readiness, freshness, full-text layout, backend and per-vault counts', async (t) => {
    const ws = workspace(t, { notes: NOTES });
    const server = await startSearchServer(t, ws);
    const reply = await server.request({ path: '/health' });
    assert.equal(reply.status, 200);
    assert.deepEqual(reply.headers['cache-control'], 'no-store');
    const body = reply.body as Record<string, unknown> & { index: Record<string, unknown> };
    assert.equal(body.status, 'ok');
    assert.equal(body.version, TEST_VERSION);
    assert.equal(body.model, ws.config.model.id);
    assert.equal(body.files, 4);
    assert.equal(body.chunks, 4);
    assert.equal(body.model_state, 'ready');
    assert.equal(body.index.lexical_layout, 'words+trigram');
    assert.equal(body.index.lexical_scoring, 'memory');
    assert.equal(body.index.vector_backend, 'wasm-simd-int8+exact-rescore');
    assert.equal(body.index.vector_search_exact, true);
    assert.equal(body.index.complete, true);
    assert.equal(body.index.schema_version, 4);
    assert.match(String(body.index.last_indexed_at), /^\d{4}-\d\d-\d\dT/);
    assert.deepEqual(body.vaults, [{ id: 'notes', configured: true, files: 4, chunks: 4 }]);
  });

  it('returns hits with exactly the documented fields, filtered by namespace, and [] when nothing passes the filter', async (t) => {
    const ws = workspace(t, { notes: NOTES });
    const server = await startSearchServer(t, ws);
    const hits = hitsOf(await server.search({ query: 'signing keys', top: 3, namespaces: ['ops'] }));
    assert.ok(hits.length > 0);
    for (const hit of hits) {
      assert.deepEqual(Object.keys(hit), HIT_FIELDS);
      assert.equal(hit.namespace, 'ops');
    }
    assert.deepEqual(
      hits.map((h) => [h.path, h.title, h.vault, h.heading, h.line_start, h.lexical_rank]),
      [['ops/keys.md', 'Keys', 'notes', 'Rotation', 5, 1]],
    );
    assert.deepEqual(hitsOf(await server.search({ query: 'keys', namespaces: ['nowhere'] })), []);
    for (const fields of [{ hybrid: false }, { mode: 'dense' }]) {
      const dense = hitsOf(await server.search({ query: 'keys', top: 50, ...fields }));
      assert.equal(dense.length, 4);
      assert.ok(dense.every((h) => h.lexical_rank === null && typeof h.dense_rank === 'number'));
    }
    const lexical = hitsOf(await server.search({ query: 'keys', top: 50, mode: 'lexical' }));
    assert.deepEqual(
      lexical.map((h) => [h.path, h.dense_rank, h.lexical_rank]),
      [['ops/keys.md', null, 1]],
    );
    const diverse = hitsOf(await server.search({ query: 'keys', mmr: true, mmr_lambda: 0.5, top: 4 }));
    assert.equal(diverse.length, 4);
  });

  it('finds German word parts by substring, Chinese by bigrams, and identifiers as phrases; the header names the tiers', async (t) => {
    const ws = workspace(t, { notes: NOTES });
    const server = await startSearchServer(t, ws);
    const top = async (query: string, namespaces?: string[]) => {
      const reply = await server.search({ query, top: 5, mode: 'lexical', namespaces });
      return [hitsOf(reply).map((h) => h.path), reply.headers['x-notegate-lexical']];
    };
    assert.deepEqual(await top('straße'), [['de/strassen.md'], 'substrings']);
    assert.deepEqual(await top('beruhigung'), [['de/strassen.md'], 'substrings']);
    assert.deepEqual(await top('数据库'), [['zh/db.md'], 'phrase']);
    assert.deepEqual(await top('数据'), [['zh/db.md'], 'words']);
    assert.deepEqual(await top('DEC-0054'), [['readme.md'], 'phrase']);
    assert.deepEqual(await top('rotate the keys'), [['ops/keys.md'], 'words']);
    // The filter applies to every tier.
    assert.deepEqual(await top('数据', ['zh']), [['zh/db.md'], 'words']);
    assert.deepEqual(await top('数据', ['de', 'ops']), [[], 'none']);
  });

  it('in the fallback layout (no trigram table), records the layout and ORs the terms', async (t) => {
    const ws = workspace(t, { notes: NOTES });
    const server = await startSearchServer(t, ws, { lexicalLayout: 'words' });
    const health = (await server.request({ path: '/health' })).body as { index: { lexical_layout: string } };
    assert.equal(health.index.lexical_layout, 'words');
    const hits = hitsOf(await server.search({ query: 'bahnhof ninety', top: 10 }));
    const lexical = hits.filter((h) => h.lexical_rank !== null).map((h) => h.path);
    assert.deepEqual(lexical.sort(), ['de/strassen.md', 'ops/keys.md']);
  });

  it('gives the same first page for top 10 and top 50: each leg contributes a fixed number of candidates', async (t) => {
    const many = Object.fromEntries(
      Array.from({ length: 40 }, (_, i) => [
        `n${i}.md`,
        `# Note ${i}\n\nKeys and locks, part ${i}. ${'filler '.repeat(i % 9)}\n`,
      ]),
    );
    const ws = workspace(t, { notes: { ...NOTES, ...many } });
    const server = await startSearchServer(t, ws);
    for (const fields of [{}, { mode: 'lexical' }, { mode: 'dense' }, { mmr: true }]) {
      const page = async (top: number) =>
        hitsOf(await server.search({ query: 'keys locks', top, ...fields })).map((h) => h.path);
      const ten = await page(10);
      assert.equal(ten.length, 10);
      assert.deepEqual((await page(50)).slice(0, 10), ten, JSON.stringify(fields));
    }
  });

  it('answers with plain-text snippets and their marks, the corrected typos, whole notes with files, and tag refusals', async (t) => {
    const ws = workspace(t, { notes: NOTES });
    const server = await startSearchServer(t, ws);
    const reply = await server.search({ query: 'sigining keys', top: 1, mode: 'lexical' });
    assert.deepEqual(reply.body, {
      hits: [
        {
          ...(hitsOf(reply)[0] ?? {}),
          path: 'ops/keys.md',
          snippet: 'Rotate the signing keys every ninety days. Storage Keys live in the vault.',
          marks: [
            [11, 18],
            [19, 23],
            [51, 55],
          ],
        },
      ],
      corrections: [{ from: 'sigining', to: 'signing' }],
    });
    const notes = hitsOf(await server.search({ query: 'keys', top: 50, files: true, mode: 'lexical' }));
    assert.deepEqual(
      notes.map((h) => [h.path, h.line_start, h.line_end]),
      [['ops/keys.md', 5, 9]],
    );
    const refused = await server.search({ query: 'keys', tags: ['a b'] });
    assert.equal(refused.status, 400);
    assert.deepEqual(refused.body, {
      error: 'invalid_field',
      message: 'tags: "a b" is not a tag: a tag has no spaces',
    });
  });

  it('refuses bad requests with stable codes: 400, 403, 404, 405, 413', async (t) => {
    const ws = workspace(t, { notes: NOTES });
    const server = await startSearchServer(t, ws);
    const post = (body: string, headers: Record<string, string> = {}) =>
      server.request({ method: 'POST', path: '/search', body, headers });
    const cases: [Promise<{ status: number; body: unknown }>, number, string, RegExp][] = [
      [post('{"query": "x",'), 400, 'invalid_json', /not valid JSON/],
      [post('{"query": "x", "collection": "ops"}'), 400, 'unknown_field', /"collection"/],
      [post('{"query": "x", "vaults": ["ops"]}'), 400, 'unknown_vault', /"ops" \(known: notes\)/],
      [post('{"query": ""}'), 400, 'invalid_field', /^query:/],
      [post('{"query": "x", "top": 51}'), 400, 'invalid_field', /^top:/],
      [post('{"query": "x", "mode": "lexical", "hybrid": true}'), 400, 'invalid_field', /^mode: "lexical" contradicts/],
      [post(JSON.stringify({ query: 'x'.repeat(70_000) })), 413, 'body_too_large', /65536 bytes/],
      [post('{"query": "x"}', { Host: 'evil.example' }), 403, 'forbidden_host', /Host/],
      [post('{"query": "x"}', { Origin: 'https://evil.example' }), 403, 'forbidden_origin', /Origin/],
      [server.request({ path: '/nope' }), 404, 'not_found', /no such endpoint/],
      [server.request({ path: '/search' }), 405, 'method_not_allowed', /POST/],
    ];
    for (const [reply, status, error, message] of cases) {
      const { status: actual, body } = await reply;
      assert.equal(actual, status, `${error}: ${JSON.stringify(body)}`);
      const parsed = body as { error: string; message: string };
      assert.deepEqual(Object.keys(parsed), ['error', 'message']);
      assert.equal(parsed.error, error);
      assert.match(parsed.message, message);
    }
    const allowed = await server.request({ method: 'DELETE', path: '/health' });
    assert.equal(allowed.headers.allow, 'GET');
  });

  it('serves the search page under a strict content security policy: no inline script or style, same checks as the API', async (t) => {
    const ws = workspace(t, { notes: NOTES });
    const server = await startSearchServer(t, ws);
    const page = await server.request({ path: '/' });
    assert.equal(page.status, 200);
    assert.equal(page.headers['content-type'], 'text/html; charset=utf-8');
    assert.equal(
      page.headers['content-security-policy'],
      "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
    assert.equal(page.headers['x-content-type-options'], 'nosniff');
    const html = String(page.body);
    assert.doesNotMatch(html, /<script(?![^>]*\ssrc=)/, 'no inline script');
    assert.doesNotMatch(html, /<style|\sstyle=|\son[a-z]+=/i, 'no inline style or handler');
    const modules = [...html.matchAll(/src="([^"]+)"|href="(\/page\/[^"]+)"/g)].map((m) => m[1] ?? m[2] ?? '');
    assert.deepEqual(modules, ['/page/icon.svg', '/page/search.css', '/page/main.js']);
    const types: Record<string, RegExp> = { js: /^text\/javascript/, css: /^text\/css/, svg: /^image\/svg\+xml/ };
    for (const file of [
      '/page/main.js',
      '/page/api.js',
      '/page/links.js',
      '/page/render.js',
      '/page/search.css',
      '/page/icon.svg',
    ]) {
      const reply = await server.request({ path: file });
      assert.equal(reply.status, 200, file);
      assert.match(String(reply.headers['content-type']), types[file.split('.').pop() ?? ''] ?? /^$/);
      assert.equal(reply.headers['content-security-policy'], page.headers['content-security-policy']);
    }
    assert.equal((await server.request({ path: '/page/main.d.ts' })).status, 404);
    assert.equal((await server.request({ path: '/', headers: { Host: 'evil.example' } })).status, 403);
    assert.equal((await server.request({ path: '/', headers: { Origin: 'https://evil.example' } })).status, 403);
    assert.equal((await server.request({ method: 'POST', path: '/' })).status, 405);
  });

  it('tells the page what a search can be narrowed to: vaults, their folders, tags with nested ones, modes', async (t) => {
    const ws = workspace(t, {
      notes: { ...NOTES, 'recipes/eggs.md': '---\ntags: [recipe, project/kitchen]\n---\n# Eggs\n\nBoil them.\n' },
    });
    const server = await startSearchServer(t, ws);
    const reply = await server.request({ path: '/filters' });
    assert.equal(reply.status, 200);
    assert.deepEqual(reply.body, {
      vaults: [{ id: 'notes', folder: null, obsidian: false }],
      namespaces: [
        { vault: 'notes', namespace: '', chunks: 1 },
        { vault: 'notes', namespace: 'de', chunks: 1 },
        { vault: 'notes', namespace: 'ops', chunks: 1 },
        { vault: 'notes', namespace: 'recipes', chunks: 1 },
        { vault: 'notes', namespace: 'zh', chunks: 1 },
      ],
      tags: [
        { tag: 'project', notes: 1 },
        { tag: 'project/kitchen', notes: 1 },
        { tag: 'recipe', notes: 1 },
      ],
      modes: ['hybrid', 'dense', 'lexical'],
    });
  });

  it('keeps a tiny vault findable beside a large near-duplicate vault when filtered (filters before top-k)', async (t) => {
    const big = Object.fromEntries(
      Array.from({ length: 60 }, (_, i) => [
        `n${i}.md`,
        `# Quarterly budget review ${i}\n\nQuarterly budget review.\n`,
      ]),
    );
    // Longer than the big vault's notes (so they rank below them) but one chunk each.
    const tiny = {
      'a.md': `# Finance\n\n${'Unrelated words about planning. '.repeat(10)}The quarterly budget review is on Monday.\n`,
      'b.md': `# Notes\n\n${'Some other long text here. '.repeat(10)}Quarterly budget review moved.\n`,
    };
    const ws = workspace(t, { big, tiny });
    const server = await startSearchServer(t, ws);
    const unfiltered = hitsOf(await server.search({ query: 'quarterly budget review', top: 50 }));
    assert.ok(unfiltered.filter((h) => h.lexical_rank !== null).every((h) => h.vault === 'big'));
    for (const hybrid of [true, false]) {
      const hits = hitsOf(await server.search({ query: 'quarterly budget review', top: 8, vaults: ['tiny'], hybrid }));
      assert.deepEqual(hits.map((h) => h.path).sort(), ['a.md', 'b.md'], `hybrid ${hybrid}`);
      if (hybrid) assert.ok(hits.every((h) => typeof h.lexical_rank === 'number'));
    }
  });

  it('answers 503 saying what to run, never an empty list, when there is no index yet', async (t) => {
    const missing = workspace(t, { notes: NOTES });
    const noIndex = await startSearchServer(t, missing, { index: false });
    const refused = await noIndex.search({ query: 'keys' });
    assert.deepEqual(refused, {
      status: 503,
      headers: refused.headers,
      body: {
        error: 'index_missing',
        message: "there is no index yet: run 'notegate-rag index' (or serve with --watch, which builds it)",
      },
    });
    const health = await noIndex.request({ path: '/health' });
    assert.equal(health.status, 503);
    assert.deepEqual((health.body as { status: string; index: { state: string } }).status, 'degraded');
    assert.match(JSON.stringify(health.body), /no index at .*run 'notegate-rag index'/);
    assert.equal(noIndex.logs.length, 0, 'an expected state, not a failure to log');
  });

  it('answers an index that holds nothing with no hits and a notice saying so, in every mode', async (t) => {
    const ws = workspace(t, { empty: {} });
    const server = await startSearchServer(t, ws);
    for (const mode of ['hybrid', 'dense', 'lexical']) {
      const reply = await server.search({ query: 'keys', mode, mmr: mode === 'hybrid' });
      assert.equal(reply.status, 200, mode);
      assert.deepEqual(reply.body, {
        hits: [],
        corrections: [],
        notice:
          "the index holds no notes yet: the vaults have no markdown files, or 'notegate-rag index' has not indexed them",
      });
    }
    const notes = await startSearchServer(t, workspace(t, { notes: NOTES }));
    assert.deepEqual(
      (await notes.search({ query: 'zeppelin', mode: 'lexical' })).body,
      { hits: [], corrections: [] },
      'no notice for a query that found nothing',
    );
  });

  it('answers 500 with a fixed message, never an empty list, when the index is damaged or the model failed', async (t) => {
    const damaged = workspace(t, { notes: NOTES });
    const server = await startSearchServer(t, damaged);
    assert.equal((await server.search({ query: 'keys' })).status, 200);
    const Database = (await import('better-sqlite3')).default;
    const raw = new Database(damaged.config.indexPath);
    raw.pragma('foreign_keys = OFF');
    raw.exec('DELETE FROM files');
    raw.close();
    server.snapshots.check();
    await server.snapshots.settled();
    const broken = await server.search({ query: 'keys' });
    assert.equal(broken.status, 500);
    assert.deepEqual(broken.body, {
      error: 'search_failed',
      message: 'the search failed; the server log has the details',
    });
    assert.match(server.logs.join('\n'), /is missing from the index snapshot/);

    const noModel = await startSearchServer(t, workspace(t, { notes: NOTES }), {
      loadEmbedder: () => Promise.reject(new Error('weights not in the cache')),
    });
    const failed = await noModel.search({ query: 'keys' });
    assert.equal(failed.status, 500);
    assert.equal((failed.body as { error: string }).error, 'model_unavailable');
    // A lexical search needs no model.
    assert.deepEqual(hitsOf(await noModel.search({ query: 'keys', mode: 'lexical' }))[0]?.path, 'ops/keys.md');
    const modelHealth = (await noModel.request({ path: '/health' })).body as Record<string, unknown>;
    assert.deepEqual(
      [modelHealth.status, modelHealth.model_state, modelHealth.model_error],
      ['degraded', 'failed', 'weights not in the cache'],
    );
  });

  it('answers 500 for a file that is not a database, and reports an unfinished rebuild as degraded', async (t) => {
    const garbage = workspace(t, { notes: NOTES });
    mkdirSync(path.dirname(garbage.config.indexPath), { recursive: true });
    writeFileSync(garbage.config.indexPath, Buffer.alloc(8192, 0x5a));
    const server = await startSearchServer(t, garbage, { index: false });
    const reply = await server.search({ query: 'keys' });
    assert.deepEqual([reply.status, (reply.body as { error: string }).error], [500, 'index_unavailable']);
    const health = (await server.request({ path: '/health' })).body as {
      status: string;
      index: Record<string, unknown>;
    };
    assert.deepEqual([health.status, health.index.state], ['degraded', 'failed']);
    assert.match(String(health.index.error), /not a database/);

    const unfinished = workspace(t, { notes: NOTES });
    const running = await startSearchServer(t, unfinished);
    const Database = (await import('better-sqlite3')).default;
    const raw = new Database(unfinished.config.indexPath);
    raw.exec("DELETE FROM meta WHERE key = 'last_indexed_at_ms'");
    raw.close();
    running.snapshots.check();
    await running.snapshots.settled();
    const degraded = await running.request({ path: '/health' });
    const body = degraded.body as { status: string; index: Record<string, unknown> };
    assert.deepEqual(
      [degraded.status, body.status, body.index.complete, body.index.last_indexed_at],
      [503, 'degraded', false, null],
    );
    // Searching an incomplete index still works: it holds what was committed.
    assert.equal((await running.search({ query: 'keys' })).status, 200);
  });

  it('says starting while the model loads', async (t) => {
    const ws = workspace(t, { notes: NOTES });
    const server = await startSearchServer(t, ws, { loadEmbedder: () => new Promise(() => {}) });
    const reply = await server.request({ path: '/health' });
    assert.equal(reply.status, 503);
    assert.deepEqual(
      [(reply.body as Record<string, unknown>).status, (reply.body as Record<string, unknown>).model_state],
      ['starting', 'loading'],
    );
  });

  it('serves an index without vectors (embed_model none): lexical by default, vector modes refused by name', async (t) => {
    const ws = workspace(t, { notes: NOTES }, 'none');
    const server = await startSearchServer(t, ws);
    const health = await server.request({ path: '/health' });
    const body = health.body as Record<string, unknown> & { index: Record<string, unknown> };
    assert.deepEqual(
      [health.status, body.status, body.model, body.model_state, body.index.vector_backend, body.index.dimension],
      [200, 'ok', 'none', 'ready', 'none', 0],
    );
    const reply = await server.search({ query: 'rotate the signing keys' });
    assert.deepEqual(
      hitsOf(reply).map((h) => [h.path, h.dense_rank, h.lexical_rank]),
      [['ops/keys.md', null, 1]],
    );
    const refused: [Record<string, unknown>, RegExp][] = [
      [{ mode: 'dense' }, /^mode: "dense" needs vectors, and this index has no vectors/],
      [{ mode: 'hybrid' }, /^mode: "hybrid" needs vectors/],
      [{ hybrid: true }, /^hybrid: mode "hybrid" needs vectors/],
      [{ mmr: true }, /^mmr: needs vectors/],
    ];
    for (const [fields, message] of refused) {
      const { status, body: error } = await server.search({ query: 'keys', ...fields });
      assert.equal(status, 400);
      assert.equal((error as { error: string }).error, 'invalid_field');
      assert.match((error as { message: string }).message, message);
    }
  });
});
