import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { toolError } from '../../../src/errors/tool-errors.js';
import { defineTool, type Preparation } from '../../../src/mcp-server/tools/define-tool.js';
import { modernHeaders, modernToolCall } from '../../support/notes-server-fixture.js';

interface Echo {
  readonly prepared: string;
  readonly preparation: number;
}

/** A tool that counts its preparations and reports, as its result, the value its run was given. */
function countingTool() {
  const counts = { prepared: 0, run: 0 };
  const tool = defineTool({
    name: 'echo.words',
    scope: 'echo:read',
    title: 'Echo',
    description: 'echoes the words it was prepared with',
    input: z.strictObject({ words: z.string() }),
    output: z.object({ prepared: z.string(), preparation: z.number() }),
    prepare: (args): Preparation<Echo> => {
      counts.prepared += 1;
      if (args.words === 'refuse') return { refused: toolError('ERR_NOTE_TITLE', 'refused by the test') };
      return { ready: { prepared: args.words.toUpperCase(), preparation: counts.prepared } };
    },
    run: async (ready) => {
      counts.run += 1;
      return ready;
    },
    onFault: () => undefined,
  });
  return { tool, counts };
}

/** One 2026-07-28 tools/call served by the SDK's handler over a server with `tool` registered. */
async function serve(tool: ReturnType<typeof countingTool>['tool'], words: string, screen: boolean) {
  const handler = createMcpHandler(() => {
    const server = new McpServer({ name: 'test', version: '1' }, { capabilities: { tools: { listChanged: false } } });
    tool.register(server);
    return server;
  });
  const body = modernToolCall('echo.words', { words });
  const request = new Request('http://127.0.0.1/mcp', {
    method: 'POST',
    headers: modernHeaders(undefined, 'tools/call', 'echo.words'),
    body,
  });
  if (screen) {
    const screened = tool.screen({ words });
    assert.ok('accepted' in screened, JSON.stringify(screened));
    screened.accepted(request);
  }
  const response = await handler.fetch(request, { parsedBody: JSON.parse(body) });
  const answer = (await response.json()) as {
    result?: { structuredContent?: unknown; isError?: boolean; content: { text: string }[] };
  };
  return answer.result;
}

describe('defineTool', () => {
  it('prepares a screened call once and runs the SDK handler with what the screening prepared', async () => {
    const { tool, counts } = countingTool();
    const result = await serve(tool, 'quiet', true);
    assert.deepEqual(result?.structuredContent, { prepared: 'QUIET', preparation: 1 });
    assert.deepEqual(counts, { prepared: 1, run: 1 });
  });

  it('screens arguments: invalid by the schema, refused by the tool, or accepted', () => {
    const { tool, counts } = countingTool();
    assert.match(JSON.stringify(tool.screen({ words: 7 })), /"invalid":"words: /);
    assert.match(JSON.stringify(tool.screen({ words: 'x', more: 1 })), /"invalid":/);
    const refused = tool.screen({ words: 'refuse' });
    assert.ok('refused' in refused && refused.refused.code === 'ERR_NOTE_TITLE');
    assert.ok('accepted' in tool.screen({ words: 'fine' }));
    assert.equal(counts.run, 0, 'screening never runs the tool');
  });

  it('prepares in the handler a call that was not screened (a plain SDK server), refusing with the fixed text', async () => {
    const { tool, counts } = countingTool();
    assert.deepEqual((await serve(tool, 'loud', false))?.structuredContent, { prepared: 'LOUD', preparation: 1 });
    const refused = await serve(tool, 'refuse', false);
    assert.equal(refused?.isError, true);
    assert.equal(refused?.content[0]?.text, 'The title must contain a letter or a digit');
    assert.deepEqual(counts, { prepared: 2, run: 1 });
  });

  it('keys the hand-over by the request: a screened request does not lend its preparation to another', async () => {
    const { tool, counts } = countingTool();
    tool.screen({ words: 'first' });
    const result = await serve(tool, 'second', false);
    assert.deepEqual(result?.structuredContent, { prepared: 'SECOND', preparation: 2 });
    assert.equal(counts.prepared, 2);
  });
});
