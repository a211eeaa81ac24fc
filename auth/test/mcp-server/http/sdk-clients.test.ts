import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { z } from 'zod';
import { defineTool } from '../../../src/mcp-server/tools/define-tool.js';
import { notesTools } from '../../../src/mcp-server/tools/notes-tools.js';
import type { ToolRegistration } from '../../../src/mcp-server/tools/tool-catalog.js';
import { runNotegate } from '../../support/cli-process.js';
import { type NotesServerFixture, startNotesServer } from '../../support/notes-server-fixture.js';
import { notesIn } from '../../support/test-engine.js';

type Negotiation = 'pin' | 'auto' | 'legacy';

/** The official v2 client (revision 2026-07-28), with the token as a static bearer. */
async function modernClient(fixture: NotesServerFixture, token: string, mode: Negotiation = 'pin'): Promise<Client> {
  const client = new Client(
    { name: 'notes-test', version: '1.0.0' },
    { versionNegotiation: { mode: mode === 'pin' ? { pin: '2026-07-28' } : mode } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(fixture.endpoint), { authProvider: { token: async () => token } }),
  );
  return client;
}

/** The v1 SDK client (revision 2025-11-25: initialize, then requests), recording response content types. */
async function legacyClient(fixture: NotesServerFixture, token: string, contentTypes: string[] = []) {
  const client = new LegacyClient({ name: 'notes-test-v1', version: '1.0.0' });
  const transport = new LegacyTransport(new URL(fixture.endpoint), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
    fetch: async (url, init) => {
      const response = await fetch(url, init);
      if (init?.method === 'POST') contentTypes.push(response.headers.get('content-type') ?? '(none)');
      return response;
    },
  });
  await client.connect(transport);
  return client;
}

function structured(result: unknown): Record<string, unknown> {
  assert.ok(typeof result === 'object' && result !== null && 'structuredContent' in result);
  const content = result.structuredContent;
  assert.ok(typeof content === 'object' && content !== null);
  return Object.fromEntries(Object.entries(content));
}

describe('official SDK clients against the notes server', () => {
  const modes: [Negotiation, string][] = [
    ['pin', '2026-07-28, pinned'],
    ['auto', '2026-07-28, negotiated via server/discover'],
    ['legacy', 'its default legacy negotiation: initialize, 2025-11-25'],
  ];
  for (const [mode, what] of modes) {
    it(`serves the v2 client (${what})`, async (t) => {
      const fixture = await startNotesServer(t);
      const client = await modernClient(fixture, await fixture.issuer.sign(), mode);
      t.after(() => client.close());
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((tool) => tool.name).sort(), ['notes.read', 'notes.search', 'notes.write']);
      const search = tools.find((tool) => tool.name === 'notes.search');
      assert.deepEqual(search?.inputSchema.required, ['query']);
      assert.ok(search?.outputSchema, 'output schema advertised');

      const written = structured(
        await client.callTool({ name: 'notes.write', arguments: { title: 'Plan', body: 'Rotate the signing key.' } }),
      );
      assert.equal(written.created, true);
      assert.equal(written.path, 'Plan.md');
      const found = structured(await client.callTool({ name: 'notes.search', arguments: { query: 'signing' } }));
      assert.deepEqual(
        (found.hits as { path: string }[]).map((hit) => hit.path),
        [written.path],
      );
      const allows = fixture.audit().filter((entry) => entry.decision === 'allow');
      assert.ok(
        allows.some((entry) => entry.tool === 'notes.write' && entry.spiffe_id === 'spiffe://example.org/agent'),
      );
    });
  }

  it('serves the v1 SDK client (2025-11-25, stateless) with JSON responses', async (t) => {
    const fixture = await startNotesServer(t);
    const contentTypes: string[] = [];
    const client = await legacyClient(fixture, await fixture.issuer.sign(), contentTypes);
    t.after(() => client.close());
    assert.equal(client.getServerVersion()?.name, 'notegate-notes-test');
    const cli = await runNotegate(['--version']);
    assert.equal(
      cli.stdout,
      `notegate ${client.getServerVersion()?.version}\n`,
      'the version notegate --version prints',
    );
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name).sort(), ['notes.read', 'notes.search', 'notes.write']);
    const written = await client.callTool({
      name: 'notes.write',
      arguments: { title: 'Überprüfung', body: '年次の鍵の確認' },
    });
    assert.equal(written.isError, undefined);
    const found = await client.callTool({ name: 'notes.search', arguments: { query: '鍵の確認', top: 5 } });
    assert.equal((structured(found).hits as unknown[]).length, 1);
    assert.ok(contentTypes.length >= 3);
    for (const type of contentTypes.filter((value) => value !== '(none)')) assert.match(type, /^application\/json/);
  });

  it('lists only the tools whose scope was granted', async (t) => {
    const fixture = await startNotesServer(t);
    const cases: [string, string[]][] = [
      ['notes:read', ['notes.read', 'notes.search']],
      ['notes:write', ['notes.write']],
      ['notes:read notes:write', ['notes.read', 'notes.search', 'notes.write']],
      ['profile', []],
    ];
    for (const [scope, expected] of cases) {
      for (const connect of [
        (token: string) => modernClient(fixture, token),
        (token: string) => legacyClient(fixture, token),
      ]) {
        const client = await connect(await fixture.issuer.sign({ claims: { scope } }));
        const { tools } = await client.listTools();
        await client.close();
        assert.deepEqual(tools.map((tool) => tool.name).sort(), expected, scope);
      }
    }
  });

  it('refuses a call the scopes do not allow with 403 before the SDK runs it', async (t) => {
    const fixture = await startNotesServer(t);
    const client = await modernClient(fixture, await fixture.issuer.sign({ claims: { scope: 'notes:read' } }));
    t.after(() => client.close());
    await assert.rejects(client.callTool({ name: 'notes.write', arguments: { title: 't', body: 'b' } }));
    const denial = fixture.audit().find((entry) => entry.decision === 'deny');
    assert.equal(denial?.status, 403);
    assert.deepEqual(notesIn(fixture.notesDir), [], 'nothing was written');
  });

  it('reuses pooled SDK instances for 2026-07-28 traffic', async (t) => {
    const fixture = await startNotesServer(t);
    const client = await modernClient(fixture, await fixture.issuer.sign());
    t.after(() => client.close());
    for (let i = 0; i < 20; i++) await client.callTool({ name: 'notes.search', arguments: { query: `q${i}` } });
    await Promise.all(
      Array.from({ length: 10 }, (_, i) => client.callTool({ name: 'notes.search', arguments: { query: `p${i}` } })),
    );
    assert.ok(fixture.notes.dispatcher.pooledInstances <= 11, `built ${fixture.notes.dispatcher.pooledInstances}`);
  });

  it('reuses pooled SDK instances for 2025-11-25 traffic too', async (t) => {
    const fixture = await startNotesServer(t);
    const client = await legacyClient(fixture, await fixture.issuer.sign());
    t.after(() => client.close());
    for (let i = 0; i < 20; i++) await client.callTool({ name: 'notes.search', arguments: { query: `q${i}` } });
    assert.ok(fixture.notes.dispatcher.pooledInstances <= 2, `built ${fixture.notes.dispatcher.pooledInstances}`);
  });

  it('prepares each tools/call once, when it is screened, in both eras', async (t) => {
    let prepared = 0;
    const probe = defineTool({
      name: 'probe.prepare',
      scope: 'notes:read',
      title: 'Probe',
      description: 'counts its preparations',
      input: z.strictObject({}),
      output: z.object({ preparation: z.number() }),
      prepare: () => ({ ready: { preparation: ++prepared } }),
      run: async (ready) => ready,
      onFault: () => undefined,
    });
    const fixture = await startNotesServer(t, { tools: (engine) => [...notesTools(engine, () => undefined), probe] });
    const token = await fixture.issuer.sign();
    const modern = await modernClient(fixture, token);
    t.after(() => modern.close());
    const legacy = await legacyClient(fixture, token);
    t.after(() => legacy.close());
    assert.deepEqual(structured(await modern.callTool({ name: 'probe.prepare', arguments: {} })), { preparation: 1 });
    assert.deepEqual(structured(await legacy.callTool({ name: 'probe.prepare', arguments: {} })), { preparation: 2 });
    assert.equal(prepared, 2);
  });

  it('never hands the bearer token to the SDK or the tools', async (t) => {
    const seen: unknown[] = [];
    const probe: ToolRegistration = {
      name: 'probe.context',
      scope: 'notes:read',
      screen: () => ({ accepted: () => undefined }),
      register: (server) =>
        server.registerTool('probe.context', { description: 'records what a tool can see' }, (ctx) => {
          seen.push({
            authorization: ctx.http?.req?.headers.get('authorization') ?? null,
            cookie: ctx.http?.req?.headers.get('cookie') ?? null,
            authInfo: ctx.http?.authInfo ?? null,
          });
          return { content: [{ type: 'text', text: 'ok' }] };
        }),
    };
    const fixture = await startNotesServer(t, {
      tools: (engine) => [...notesTools(engine, () => undefined), probe],
    });
    const token = await fixture.issuer.sign();
    const modern = await modernClient(fixture, token);
    await modern.callTool({ name: 'probe.context', arguments: {} });
    await modern.close();
    const legacy = await legacyClient(fixture, token);
    await legacy.callTool({ name: 'probe.context', arguments: {} });
    await legacy.close();
    assert.deepEqual(seen, [
      { authorization: null, cookie: null, authInfo: null },
      { authorization: null, cookie: null, authInfo: null },
    ]);
  });

  it('filters notes.search by tag, returns whole notes with files, and answers in plain text with corrections', async (t) => {
    const notesDir = mkdtempSync(join(tmpdir(), 'notes-server-tags-'));
    t.after(() => rmSync(notesDir, { recursive: true, force: true }));
    mkdirSync(join(notesDir, 'recipes'));
    writeFileSync(
      join(notesDir, 'recipes', 'eggs.md'),
      '---\ntags: [recipe]\n---\n# Eggs\n\nBoil the **eggs** for [seven minutes](https://example.org).\n',
    );
    writeFileSync(join(notesDir, 'market.md'), '# Market\n\nBought eggs and kale.\n');
    const fixture = await startNotesServer(t, { notesDir });
    const client = await modernClient(fixture, await fixture.issuer.sign());
    t.after(() => client.close());
    const tagged = structured(
      await client.callTool({ name: 'notes.search', arguments: { query: 'boill', tags: ['recipe'], files: true } }),
    );
    assert.deepEqual(tagged.corrections, [{ from: 'boill', to: 'boil' }]);
    assert.deepEqual(
      (tagged.hits as Record<string, unknown>[]).map((hit) => [hit.path, hit.snippet, hit.text]),
      [
        [
          'recipes/eggs.md',
          'Boil the eggs for seven minutes.',
          'Boil the **eggs** for [seven minutes](https://example.org).',
        ],
      ],
    );
    const all = structured(await client.callTool({ name: 'notes.search', arguments: { query: 'eggs' } }));
    assert.deepEqual((all.hits as { path: string }[]).map((hit) => hit.path).sort(), ['market.md', 'recipes/eggs.md']);
    assert.ok(
      (all.hits as Record<string, unknown>[]).every((hit) => !('text' in hit)),
      'passages carry no text',
    );
  });
});
