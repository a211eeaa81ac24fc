import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UsageError } from '@notegate/kit/cli';
import { ToolCatalog, type ToolRegistration } from '../../../src/mcp-server/tools/tool-catalog.js';
import { NOTES_SCOPES } from '../../../src/oauth/notes-scopes.js';
import { protectedResourceMetadataUrl } from '../../../src/oauth/well-known.js';
import { startNotesServer } from '../../support/notes-server-fixture.js';

function tool(name: string, scope?: string): ToolRegistration {
  return {
    name,
    ...(scope !== undefined && { scope }),
    screen: () => ({ accepted: () => undefined }),
    register: () => undefined,
  };
}

describe('ToolCatalog', () => {
  it('maps tools to scopes and lists the tools a scope set grants', () => {
    const catalog = ToolCatalog.create([
      tool('b.write', 'b:write'),
      tool('a.read', 'a:read'),
      tool('a.list', 'a:read'),
    ]);
    assert.equal(catalog.get('b.write')?.scope, 'b:write');
    assert.equal(catalog.get('missing'), undefined);
    assert.deepEqual(catalog.scopesSupported, ['a:read', 'b:write']);
    assert.deepEqual(
      catalog.toolsGrantedBy(new Set(['a:read', 'other'])).map((t) => t.name),
      ['a.list', 'a.read'],
    );
  });

  it('refuses to start when a tool has no declared scope, naming the tool', () => {
    for (const scope of [undefined, '']) {
      assert.throws(
        () => ToolCatalog.create([tool('notes.search', 'notes:read'), tool('notes.export', scope)]),
        (err) => err instanceof UsageError && /tool 'notes\.export' has no declared scope/.test(err.message),
      );
    }
  });

  it('refuses malformed scopes, invalid names and duplicates', () => {
    assert.throws(() => ToolCatalog.create([tool('x', 'two words')]), /not an RFC 6749 scope-token/);
    assert.throws(() => ToolCatalog.create([tool('bad name', 's')]), /not a valid tool name/);
    assert.throws(() => ToolCatalog.create([tool('x', 's'), tool('x', 's')]), /registered twice/);
  });

  it('gives the notes tools exactly the scopes a policy may grant', async (t) => {
    const { endpoint } = await startNotesServer(t);
    const metadata: unknown = await (await fetch(protectedResourceMetadataUrl(endpoint))).json();
    assert.ok(typeof metadata === 'object' && metadata !== null);
    assert.deepEqual(Reflect.get(metadata, 'scopes_supported'), [...NOTES_SCOPES].sort());
  });

  it('makes the notes server refuse to start for a tool without scope', async (t) => {
    await assert.rejects(
      startNotesServer(t, { tools: () => [tool('notes.unscoped')] }),
      (err) => err instanceof UsageError && /tool 'notes\.unscoped' has no declared scope/.test(err.message),
    );
  });
});
