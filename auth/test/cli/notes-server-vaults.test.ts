import assert from 'node:assert/strict';
import { once } from 'node:events';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { reservePort } from '@notegate/kit/http';
import { tempDir, waitFor } from '@notegate/kit/testing';
import { loadRagConfig, noDownloads, runIndex } from '@notegate/rag';
import { TestAccessTokenIssuer } from '../support/access-token-issuer.js';
import { runNotegate, startNotegate } from '../support/cli-process.js';
import { mcpHeaders, toolCall } from '../support/notes-server-fixture.js';

interface Hit {
  readonly vault: string;
  readonly path: string;
  readonly title: string;
  readonly line_start: number;
  readonly line_end: number;
  readonly snippet: string;
}

/** A notes server child process (the real CLI) on a free port, with a test issuer for its tokens. */
async function notesServer(
  t: TestContext,
  vaultArgs: string[],
  name = 'notes',
  port?: number,
  env: NodeJS.ProcessEnv = process.env,
) {
  const resource = `http://127.0.0.1:${port ?? (await reservePort())}/mcp`;
  const issuer = await TestAccessTokenIssuer.start(resource);
  t.after(() => issuer.close());
  const args = ['notes-server', '--name', name, '--resource', resource, '--issuer', issuer.issuer];
  args.push('--jwks-uri', issuer.jwksUri, '--audit-log', '/dev/null', ...vaultArgs);
  const started = await startNotegate(t, args, env);
  assert.equal(started.output.stdout, `listening on ${resource}\n`, started.output.stderr);
  return { ...started, resource, issuer, args };
}

async function call(resource: string, token: string, tool: string, args: unknown) {
  const response = await fetch(resource, { method: 'POST', headers: mcpHeaders(token), body: toolCall(tool, args) });
  const json = (await response.json()) as {
    result?: { structuredContent?: Record<string, unknown>; content: { text: string }[]; isError?: boolean };
    error?: { code: number; message: string };
  };
  return { status: response.status, ...json };
}

async function search(resource: string, token: string, query: string): Promise<Hit[]> {
  const answer = await call(resource, token, 'notes.search', { query });
  assert.equal(answer.status, 200);
  assert.equal(answer.error, undefined, JSON.stringify(answer.error));
  return (answer.result?.structuredContent?.hits ?? []) as Hit[];
}

/** Writes `<dir>/vaults.json`: the vaults `ids` at `<dir>/<id>`, all of `dir` allowed; returns its path. */
function writeVaultsConfig(
  dir: string,
  fields: { readonly embedModel: string; readonly indexPath?: string; readonly ids: readonly string[] },
): string {
  const config = join(dir, 'vaults.json');
  writeFileSync(
    config,
    JSON.stringify({
      embed_model: fields.embedModel,
      allowed_roots: [dir],
      ...(fields.indexPath !== undefined && { index_path: fields.indexPath }),
      vaults: fields.ids.map((id) => ({ id, path: join(dir, id) })),
    }),
  );
  return config;
}

/** `notegate-rag index` of `config` in this process, never downloading. */
function indexOffline(config: string, modelCacheDir: string) {
  return runIndex({
    config: loadRagConfig(config, homedir()),
    modelCacheDir,
    download: noDownloads(new URL('http://127.0.0.1/')),
  });
}

describe('notegate notes-server over the retrieval index', () => {
  it('--notes-dir: a written note is searchable (waited for, never slept), with its path, lines and snippet', async (t) => {
    const dir = tempDir(t, 'notes-engine-');
    const server = await notesServer(t, ['--notes-dir', join(dir, 'notes')]);
    const token = await server.issuer.sign();
    const written = await call(server.resource, token, 'notes.write', {
      title: 'Quarterly key ceremony',
      body: '# Steps\n\nRotate the HSM wrapping key with two custodians present.\n',
    });
    assert.equal(written.error, undefined);
    assert.deepEqual(written.result?.structuredContent, {
      vault: 'notes',
      path: 'Quarterly key ceremony.md',
      created: true,
      bytes: Buffer.byteLength(readFileSync(join(dir, 'notes', 'Quarterly key ceremony.md'), 'utf8')),
      indexed: true,
    });
    const hits = await waitFor('the note in the search', async () => {
      const found = await search(server.resource, token, 'custodians');
      return found.length > 0 && found;
    });
    const [hit] = hits;
    assert.equal(hit?.path, 'Quarterly key ceremony.md');
    assert.equal(hit?.title, 'Quarterly key ceremony');
    assert.match(hit?.snippet ?? '', /two custodians present/);
    assert.ok((hit?.line_start ?? 0) >= 1 && (hit?.line_end ?? 0) >= (hit?.line_start ?? 0));
    const text = (await call(server.resource, token, 'notes.search', { query: 'custodians' })).result?.content[0]?.text;
    assert.match(text ?? '', /^1\. notes\/Quarterly key ceremony\.md:\d+-\d+ {2}Quarterly key ceremony/);
    assert.ok(existsSync(join(dir, 'notes', '.notegate', 'index.sqlite')), 'the index is inside the folder, hidden');
  });

  it('a note acknowledged before a SIGKILL is on disk, and the next start indexes it', async (t) => {
    const dir = tempDir(t, 'notes-kill-');
    const port = await reservePort();
    const first = await notesServer(t, ['--notes-dir', join(dir, 'notes')], 'notes', port);
    const token = await first.issuer.sign();
    const written = await call(first.resource, token, 'notes.write', {
      title: 'Power cut',
      body: 'The generator needs diesel every Friday.',
      path: 'ops/power.md',
    });
    assert.equal(written.result?.structuredContent?.path, 'ops/power.md');
    first.child.kill('SIGKILL');
    await once(first.child, 'exit');
    assert.match(readFileSync(join(dir, 'notes', 'ops', 'power.md'), 'utf8'), /diesel every Friday/);
    // The index of the killed process is removed too: the new one must index the note at start.
    rmSync(join(dir, 'notes', '.notegate'), { recursive: true, force: true });
    const second = await notesServer(t, ['--notes-dir', join(dir, 'notes')], 'notes', port);
    const found = await search(second.resource, await second.issuer.sign(), 'diesel');
    assert.deepEqual(
      found.map((hit) => hit.path),
      ['ops/power.md'],
      'searchable as soon as it listens',
    );
  });

  it('concurrent writes of one note leave one of them whole', async (t) => {
    const dir = tempDir(t, 'notes-race-');
    const server = await notesServer(t, ['--notes-dir', join(dir, 'notes')]);
    const token = await server.issuer.sign();
    const bodies = Array.from({ length: 8 }, (_, i) => `${String(i).repeat(20_000)}\n`);
    const answers = await Promise.all(
      bodies.map((body) => call(server.resource, token, 'notes.write', { title: 'Race', body, path: 'race.md' })),
    );
    assert.ok(answers.every((answer) => answer.result?.isError === undefined && answer.error === undefined));
    assert.equal(answers.filter((answer) => answer.result?.structuredContent?.created === true).length, 1);
    const content = readFileSync(join(dir, 'notes', 'race.md'), 'utf8');
    assert.ok(
      bodies.some((body) => content.endsWith(`\n\n${body}`)),
      'the file is exactly one of the writes',
    );
  });

  it('serves only its --vault of a shared config: other vaults are not searched, tokens are per server, notes:read cannot write', async (t) => {
    const dir = tempDir(t, 'notes-vaults-');
    const vaults: [string, string][] = [
      ['alpha', 'The alpha team deploys on Tuesdays with the blue pipeline.'],
      ['beta', 'The beta team deploys on Thursdays with the green pipeline.'],
    ];
    for (const [vault, text] of vaults) {
      mkdirSync(join(dir, vault));
      writeFileSync(join(dir, vault, 'deploys.md'), `# Deploys\n\n${text}\n`);
    }
    const config = writeVaultsConfig(dir, {
      embedModel: 'none',
      indexPath: join(dir, 'index', 'index.sqlite'),
      ids: ['alpha', 'beta'],
    });
    const built = await indexOffline(config, dir);
    assert.equal(built.new, 2);
    const a = await notesServer(t, ['--vaults-config', config, '--vault', 'alpha'], 'notes-a');
    const b = await notesServer(t, ['--vaults-config', config, '--vault', 'beta'], 'notes-b');
    const tokenA = await a.issuer.sign();
    const hitsA = await search(a.resource, tokenA, 'deploys pipeline');
    assert.deepEqual(
      hitsA.map((hit) => `${hit.vault}/${hit.path}`),
      ['alpha/deploys.md'],
    );
    assert.deepEqual(await search(a.resource, tokenA, 'thursdays green'), [], "beta's notes are not notes-a's");
    const stolen = await fetch(b.resource, {
      method: 'POST',
      headers: mcpHeaders(tokenA),
      body: toolCall('notes.search', { query: 'thursdays' }),
    });
    assert.equal(stolen.status, 401, "notes-a's token is refused by notes-b (audience)");
    const reader = await b.issuer.sign({ claims: { scope: 'notes:read' } });
    assert.equal((await search(b.resource, reader, 'thursdays')).length, 1);
    const write = await fetch(b.resource, {
      method: 'POST',
      headers: mcpHeaders(reader),
      body: toolCall('notes.write', { title: 'x', body: 'y' }),
    });
    assert.equal(write.status, 403, 'notes:read cannot write');
    assert.match(write.headers.get('www-authenticate') ?? '', /scope="notes:write"/);
    assert.deepEqual(readdirNotes(join(dir, 'beta')), ['deploys.md'], 'nothing written');
  });

  it('refuses to start with a --vault the config does not declare, naming it', async (t) => {
    const dir = tempDir(t, 'notes-undeclared-');
    mkdirSync(join(dir, 'v'));
    const config = writeVaultsConfig(dir, { embedModel: 'none', ids: ['v'] });
    const common = ['notes-server', '--resource', 'http://127.0.0.1:9/mcp', '--issuer', 'http://127.0.0.1:9/t'];
    common.push('--jwks-uri', 'http://127.0.0.1:9/j', '--vaults-config', config);
    for (const [args, message] of [
      [['--vault', 'ghost'], /--vault: vault 'ghost' is not declared in .*vaults\.json \(declared: v\)/],
      [['--vault', 'v', '--write-vault', 'nope'], /--write-vault: vault 'nope' is not declared/],
      [['--notes-dir', dir], /--notes-dir: give either --notes-dir or --vaults-config, not both/],
    ] as const) {
      const result = await runNotegate([...common, ...args]);
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, message);
    }
  });

  it('answers a search of a missing index with a fixed tool error, the reason in the audit line', async (t) => {
    const dir = tempDir(t, 'notes-missing-');
    mkdirSync(join(dir, 'v'));
    const config = writeVaultsConfig(dir, { embedModel: 'none', indexPath: join(dir, 'none.sqlite'), ids: ['v'] });
    const audit = join(dir, 'audit.log');
    const server = await notesServer(t, ['--vaults-config', config, '--audit-log', audit]);
    const answer = await call(server.resource, await server.issuer.sign(), 'notes.search', { query: 'x' });
    assert.equal(answer.status, 200);
    assert.match(answer.error?.message ?? '', /^The index of this server is not available/);
    assert.doesNotMatch(answer.error?.message ?? '', /none\.sqlite/);
    assert.match(readFileSync(audit, 'utf8'), /"decision":"deny".*none\.sqlite/);
    assert.equal(existsSync(join(dir, 'none.sqlite')), false, 'a config index is made by notegate-rag index only');
  });

  it('refuses searches and writes over an index built with another model, writing nothing', async (t) => {
    const dir = tempDir(t, 'notes-model-');
    mkdirSync(join(dir, 'v'));
    writeFileSync(join(dir, 'v', 'a.md'), '# A\n\nAlpha.\n');
    const write = (embedModel: string) =>
      writeVaultsConfig(dir, { embedModel, indexPath: join(dir, 'index.sqlite'), ids: ['v'] });
    await indexOffline(write('none'), dir);
    const config = write('sentence-transformers/all-MiniLM-L6-v2');
    const audit = join(dir, 'audit.log');
    const env = { ...process.env, NOTEGATE_MODEL_CACHE: join(dir, 'no-models') };
    const server = await notesServer(t, ['--vaults-config', config, '--audit-log', audit], 'notes', undefined, env);
    const token = await server.issuer.sign();
    for (const [tool, args] of [
      ['notes.search', { query: 'alpha', mode: 'lexical' }],
      ['notes.write', { title: 'Beta', body: 'b' }],
    ] as const) {
      const answer = await call(server.resource, token, tool, args);
      assert.equal(answer.status, 200);
      assert.match(answer.error?.message ?? '', /^The index of this server is not available/, tool);
    }
    assert.match(readFileSync(audit, 'utf8'), /"decision":"deny".*all-MiniLM-L6-v2/);
    assert.deepEqual(readdirNotes(join(dir, 'v')), ['a.md'], 'nothing written');
  });
});

function readdirNotes(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.md'))
    .sort();
}
