import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readClientLine } from '../../src/proxy/client-line.js';

describe('reading one line from the stdio client', () => {
  const refusals: [string, string, number, string | number | undefined][] = [
    ['text that is not JSON', 'hello', -32700, undefined],
    ['a truncated object', '{"jsonrpc":"2.0","id":1,', -32700, undefined],
    ['a batch (MCP has none)', '[{"jsonrpc":"2.0","id":1,"method":"ping"}]', -32600, undefined],
    ['JSON that is not an object', '42', -32600, undefined],
    ['an object without jsonrpc, answered with its id', '{"id":5,"method":"ping"}', -32600, 5],
    ['jsonrpc 1.0', '{"jsonrpc":"1.0","id":"a","method":"ping"}', -32600, 'a'],
    ['a request without a method', '{"jsonrpc":"2.0","id":7}', -32600, 7],
    [
      'an id that is neither string nor integer (no id echoed)',
      '{"jsonrpc":"2.0","id":{},"method":"ping"}',
      -32600,
      undefined,
    ],
    ['an unknown member next to a request', '{"jsonrpc":"2.0","id":3,"method":"ping","extra":1}', -32600, 3],
  ];
  for (const [what, line, code, id] of refusals) {
    it(`answers ${what} with ${code}`, () => {
      const read = readClientLine(line);
      assert.equal(read.kind, 'refused');
      if (read.kind !== 'refused') return;
      assert.equal(read.reply.error.code, code);
      assert.equal(read.reply.id, id);
      assert.equal('id' in read.reply, id !== undefined, 'an unreadable id is left out, never null');
    });
  }

  it('skips blank lines', () => {
    assert.deepEqual(readClientLine(''), { kind: 'empty' });
    assert.deepEqual(readClientLine('  \t'), { kind: 'empty' });
  });

  it('passes requests, notifications and responses through with every member of their params and results', () => {
    const messages = [
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'notes.search', arguments: { query: 'x' }, _meta: { a: 1 } },
      },
      { jsonrpc: '2.0', id: 'x', method: 'initialize', params: { protocolVersion: '2025-11-25', unknown: [1, 2] } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 9, result: { roots: [], vendor: { nested: true } } },
      { jsonrpc: '2.0', id: 9, error: { code: -32601, message: 'no', data: { why: 'x' } } },
    ];
    for (const message of messages) {
      const read = readClientLine(JSON.stringify(message));
      assert.deepEqual(read, { kind: 'message', message });
    }
  });
});
