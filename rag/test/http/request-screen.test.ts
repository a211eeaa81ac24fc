import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { allowedHostnames, screenRequest } from '../../src/http/request-screen.js';

describe('Host and Origin screening (DNS rebinding)', () => {
  const loopback = allowedHostnames('127.0.0.1');
  const cases: readonly [string, { host?: string; origin?: string }, string | undefined][] = [
    ['127.0.0.1 with a port', { host: '127.0.0.1:8765' }, undefined],
    ['localhost', { host: 'localhost:8765' }, undefined],
    ['[::1]', { host: '[::1]:8765' }, undefined],
    ['a rebinding name', { host: 'evil.example:8765' }, 'forbidden_host'],
    ['a missing Host', {}, 'forbidden_host'],
    ['another local address', { host: '192.168.1.5:8765' }, 'forbidden_host'],
    ['a loopback Origin', { host: 'localhost:8765', origin: 'http://localhost:3000' }, undefined],
    ['a foreign Origin', { host: '127.0.0.1:8765', origin: 'https://evil.example' }, 'forbidden_origin'],
    ['the null Origin', { host: '127.0.0.1:8765', origin: 'null' }, 'forbidden_origin'],
  ];
  for (const [label, headers, expected] of cases) {
    it(`${expected ? 'refuses' : 'admits'} ${label}`, () => {
      assert.equal(screenRequest(headers, loopback), expected);
    });
  }

  it('admits the bind address when serving on another interface, IPv6 in brackets', () => {
    assert.equal(screenRequest({ host: '192.168.1.5:8765' }, allowedHostnames('192.168.1.5')), undefined);
    assert.equal(screenRequest({ host: '[fd00::1]:8765' }, allowedHostnames('fd00::1')), undefined);
  });
});
