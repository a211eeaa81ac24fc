import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { isRecord, MCP_HOSTS } from '@notegate/kit';
import { mcpInspectorCli, waitFor } from '@notegate/kit/testing';
import { cliPath, runNode } from '../../test-support/child.js';
import { E5_SMALL, tempDir, type Workspace, workspace } from '../../test-support/fixtures.js';
import { testModelCache } from '../../test-support/test-model/test-model.js';

const INSPECTOR = mcpInspectorCli();
const NEEDS_INSPECTOR = { skip: INSPECTOR.skip };

const NOTES = {
  'ops/keys.md': '# Keys\n\nRotate the signing keys every quarter.\n\n## Storage\n\nKeys live in the vault.\n',
  'people/onboarding.md': '# Onboarding\n\nA buddy for every new colleague.\n',
};

interface Hit {
  readonly vault: string;
  readonly path: string;
  readonly line_start: number;
  readonly line_end: number;
  readonly snippet: string;
  /** The whole note, with files: true. */
  readonly text?: string;
}

interface CallResult {
  readonly structuredContent?: Record<string, unknown>;
  readonly content: readonly { readonly type: string; readonly text?: string }[];
  readonly isError?: boolean;
}

function hitsOf(result: CallResult): Hit[] {
  return (result.structuredContent?.hits as Hit[] | undefined) ?? [];
}

/** The environment of a user's process: a private HOME, and the test models only where asked. */
function userEnv(ws: Workspace, cache?: string): Record<string, string> {
  return { HOME: ws.home, ...(cache !== undefined && { NOTEGATE_MODEL_CACHE: cache }) };
}

/** The official SDK v2 client, starting `notegate-rag mcp` as a host does; closed after the test. */
async function connect(
  t: TestContext,
  server: { command: string; args: string[]; env: Record<string, string> },
  mode: 'auto' | 'legacy' = 'auto',
) {
  const transport = new StdioClientTransport({ ...server, stderr: 'pipe' });
  const stderr: string[] = [];
  transport.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
  const client = new Client({ name: 'notegate-rag-mcp-test', version: '1.0.0' }, { versionNegotiation: { mode } });
  t.after(() => client.close());
  await client.connect(transport);
  const call = async (name: string, args: Record<string, unknown>): Promise<CallResult> => {
    const result = await client.callTool({ name, arguments: args });
    const structuredContent = isRecord(result.structuredContent) ? result.structuredContent : undefined;
    return { structuredContent, content: result.content, isError: result.isError };
  };
  return { client, call, stderr };
}

const mcp = (ws: Workspace, ...extra: string[]) => ({
  command: process.execPath,
  args: [cliPath(), 'mcp', '--config', ws.configPath, ...extra],
  env: userEnv(ws),
});

/** Searches until the start-up index run has made the query findable. */
async function searchUntilFound(
  call: (name: string, args: Record<string, unknown>) => Promise<CallResult>,
  query: string,
) {
  let hits: Hit[] = [];
  await waitFor(`a hit for ${query}`, async () => {
    const result = await call('notes.search', { query, mode: 'lexical' });
    hits = hitsOf(result);
    return hits.length > 0;
  });
  return hits;
}

describe('notegate-rag mcp', () => {
  for (const mode of ['auto', 'legacy'] as const) {
    it(`serves notes.search and notes.read to the SDK client (${mode === 'auto' ? '2026-07-28' : '2025-11-25'}), indexing at start, read-only`, async (t) => {
      const ws = workspace(t, { v: NOTES }, 'none');
      const { client, call } = await connect(t, mcp(ws), mode);
      assert.equal(client.getNegotiatedProtocolVersion(), mode === 'auto' ? '2026-07-28' : '2025-11-25');
      const tools = await client.listTools();
      assert.deepEqual(tools.tools.map((tool) => tool.name).sort(), ['notes.read', 'notes.search']);
      const [hit] = await searchUntilFound(call, 'signing keys');
      assert.deepEqual([hit?.vault, hit?.path], ['v', 'ops/keys.md']);
      const read = await call('notes.read', {
        vault: 'v',
        path: 'ops/keys.md',
        line_start: hit?.line_start,
        line_end: hit?.line_end,
      });
      assert.equal(read.isError, undefined);
      assert.match(String(read.structuredContent?.text), /Rotate the signing keys every quarter\./);
      assert.match(read.content[0]?.text ?? '', /^v\/ops\/keys\.md:3-7 of 7 lines\n\nRotate the signing keys/);
    });
  }

  it('answers bad reads and searches with fixed tool errors, and writes nothing without --allow-write', async (t) => {
    const ws = workspace(t, { v: NOTES }, 'none');
    const { client, call, stderr } = await connect(t, mcp(ws));
    await searchUntilFound(call, 'buddy');
    const refusals: [string, Record<string, unknown>, string][] = [
      [
        'notes.read',
        { vault: 'v', path: '../../rag/vaults.json' },
        'The path must name a markdown file (.md) inside the vault, without hidden folders',
      ],
      ['notes.read', { vault: 'v', path: 'ops/missing.md' }, 'There is no note at that path in that vault'],
      ['notes.read', { vault: 'elsewhere', path: 'ops/keys.md' }, 'The vault is not one of the vaults of this server'],
      ['notes.read', { vault: 'v', path: 'ops/keys.md', line_start: 40 }, 'The line range is outside the note'],
      ['notes.search', { query: 'x', mode: 'hybrid' }, 'The index of this server has no vectors; use mode lexical'],
      ['notes.search', { query: 'word '.repeat(65) }, 'The query must be 1 to 1000 characters and at most 64 words'],
    ];
    for (const [tool, args, text] of refusals) {
      const result = await call(tool, args);
      assert.equal(result.isError, true, JSON.stringify(args));
      assert.deepEqual(result.content, [{ type: 'text', text }]);
    }
    assert.match(stderr.join(''), /notes\.read refused: path has a '\.\.' segment/);
    await assert.rejects(client.callTool({ name: 'notes.write', arguments: { title: 'Nope', body: 'b' } }), {
      message: /Tool notes\.write not found/,
    });
    assert.deepEqual(readdirSync(path.join(ws.root, 'vaults', 'v')).sort(), ['ops', 'people']);
  });

  it('takes tags and files in notes.search, and says which typos it corrected (the one tool definition)', async (t) => {
    const ws = workspace(
      t,
      {
        v: {
          'recipes/eggs.md':
            '---\ntags: [recipe]\n---\n# Eggs\n\nBoil the **eggs** for [seven minutes](https://example.org).\n',
          'market.md': '# Market\n\nBought eggs and kale.\n',
        },
      },
      'none',
    );
    const { call } = await connect(t, mcp(ws));
    assert.equal((await searchUntilFound(call, 'kale')).length, 1);
    const tagged = await call('notes.search', { query: 'boill', tags: ['recipe'], files: true });
    assert.deepEqual(tagged.structuredContent?.corrections, [{ from: 'boill', to: 'boil' }]);
    assert.deepEqual(
      hitsOf(tagged).map((hit) => [hit.path, hit.snippet, hit.text]),
      [
        [
          'recipes/eggs.md',
          'Boil the eggs for seven minutes.',
          'Boil the **eggs** for [seven minutes](https://example.org).',
        ],
      ],
    );
    const all = await call('notes.search', { query: 'eggs' });
    assert.deepEqual(
      hitsOf(all)
        .map((hit) => hit.path)
        .sort(),
      ['market.md', 'recipes/eggs.md'],
    );
    const blank = await call('notes.search', { query: 'eggs', tags: [' '] });
    assert.equal(blank.isError, true);
    assert.deepEqual(blank.content, [{ type: 'text', text: 'The tool arguments do not match the tool input schema' }]);
  });

  it('with --allow-write serves notes.write into that vault; the note is found at once; a path out is refused', async (t) => {
    const ws = workspace(t, { v: NOTES, w: { 'inbox.md': '# Inbox\n' } }, 'none');
    const { client, call } = await connect(t, mcp(ws, '--allow-write', 'w'));
    assert.deepEqual((await client.listTools()).tools.map((tool) => tool.name).sort(), [
      'notes.read',
      'notes.search',
      'notes.write',
    ]);
    await searchUntilFound(call, 'buddy');
    const written = await call('notes.write', { title: 'Quarterly ceremony', body: 'Hand over the zeppelin keys.' });
    assert.deepEqual(written.structuredContent, {
      vault: 'w',
      path: 'Quarterly ceremony.md',
      created: true,
      bytes: 63,
      indexed: true,
    });
    const found = await call('notes.search', { query: 'zeppelin' });
    assert.equal(hitsOf(found)[0]?.path, 'Quarterly ceremony.md');
    const outside = await call('notes.write', { title: 't', body: 'b', path: '../v/ops/keys.md' });
    assert.equal(outside.isError, true);
    assert.equal(
      outside.content[0]?.text,
      'The path must name a markdown file (.md) inside the vault, without hidden folders',
    );
    assert.equal(existsSync(path.join(ws.root, 'vaults', 'v', 'ops', 'keys.md')), true);
  });

  it('serves hybrid search where the index has vectors (the test model), the model from NOTEGATE_MODEL_CACHE', async (t) => {
    const ws = workspace(t, { v: NOTES }, E5_SMALL);
    const { call } = await connect(t, { ...mcp(ws), env: userEnv(ws, testModelCache()) });
    await searchUntilFound(call, 'buddy');
    const hybrid = await call('notes.search', { query: 'signing keys' });
    assert.equal(hybrid.isError, undefined);
    assert.ok(hitsOf(hybrid).some((hit) => hit.path === 'ops/keys.md'));
  });

  for (const host of MCP_HOSTS) {
    it(`--print-config ${host} prints an entry whose command starts the server as written`, async (t) => {
      const ws = workspace(t, { v: NOTES }, 'none');
      const printed = await runNode(t, cliPath(), ['mcp', '--print-config', host, '--allow-write', 'v'], {
        cwd: ws.root,
        env: { PATH: process.env.PATH, HOME: ws.home },
      });
      assert.equal(printed.code, 0, printed.stderr);
      const json = JSON.parse(printed.stdout) as Record<
        string,
        Record<string, { command: string; args: string[]; type?: string }>
      >;
      const entry = (host === 'vscode' ? json.servers : json.mcpServers)?.notes;
      assert.ok(entry, printed.stdout);
      assert.ok(path.isAbsolute(entry.command) && entry.args.every((arg, i) => i !== 0 || path.isAbsolute(arg)));
      assert.deepEqual(entry.args.slice(1), ['mcp', '--config', ws.configPath, '--allow-write', 'v']);
      assert.match(
        printed.stderr,
        host === 'claude' ? /claude mcp add-json --scope user notes '/ : /mcp\.json|claude_desktop_config\.json/,
      );
      // Started from elsewhere, as a host starts it: the entry alone must be enough.
      const { client } = await connect(t, { command: entry.command, args: entry.args, env: { HOME: ws.home } });
      assert.deepEqual((await client.listTools()).tools.map((tool) => tool.name).sort(), [
        'notes.read',
        'notes.search',
        'notes.write',
      ]);
    });
  }

  it('refuses an unknown --allow-write vault and an unknown host, naming them (exit 2)', async (t) => {
    const ws = workspace(t, { v: NOTES }, 'none');
    const env = { PATH: process.env.PATH, HOME: ws.home };
    const vault = await runNode(t, cliPath(), ['mcp', '--config', ws.configPath, '--allow-write', 'x'], { env });
    assert.equal(vault.code, 2);
    assert.match(vault.stderr, /--allow-write: 'x' is not a vault of .*vaults\.json \(vaults: v\)/);
    const host = await runNode(t, cliPath(), ['mcp', '--config', ws.configPath, '--print-config', 'emacs'], { env });
    assert.equal(host.code, 2);
    assert.match(
      host.stderr,
      /--print-config: 'emacs' is not allowed \(allowed: claude, claude-desktop, cursor, vscode\)/,
    );
  });

  for (const era of ['legacy', 'modern'] as const) {
    it(
      `MCP Inspector CLI (${era} era): tools/list and tools/call notes.search, notes.read`,
      NEEDS_INSPECTOR,
      async (t) => {
        const ws = workspace(t, { v: NOTES }, 'none');
        const home = tempDir(t);
        const server = mcp(ws);
        const inspector = (...args: string[]) =>
          promisify(execFile)(
            process.execPath,
            [INSPECTOR.cli, '--cli', '--protocol-era', era, ...args, '--', server.command, ...server.args],
            // The CLI keeps a catalog under HOME; keep it out of the real one.
            { env: { ...process.env, HOME: home }, timeout: 60_000 },
          );
        const listed = JSON.parse((await inspector('--method', 'tools/list')).stdout) as { tools: { name: string }[] };
        assert.deepEqual(listed.tools.map((tool) => tool.name).sort(), ['notes.read', 'notes.search']);
        // The first call of a fresh process may come before the start-up index run has committed the notes.
        let hits: Hit[] = [];
        await waitFor(
          'the Inspector finding the note',
          async () => {
            const called = await inspector(
              '--method',
              'tools/call',
              '--tool-name',
              'notes.search',
              '--tool-arg',
              'query=buddy',
            );
            hits = (JSON.parse(called.stdout) as { structuredContent: { hits: Hit[] } }).structuredContent.hits;
            return hits.length > 0;
          },
          120_000,
        );
        assert.equal(hits[0]?.path, 'people/onboarding.md');
        const read = await inspector(
          '--method',
          'tools/call',
          '--tool-name',
          'notes.read',
          '--tool-arg',
          'vault=v',
          '--tool-arg',
          'path=people/onboarding.md',
        );
        assert.match(
          (JSON.parse(read.stdout) as { structuredContent: { text: string } }).structuredContent.text,
          /A buddy/,
        );
      },
    );
  }
});
