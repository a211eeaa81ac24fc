import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UsageError } from '@notegate/kit/cli';
import { parseWorkloadApiAddress, resolveWorkloadApiAddress } from '../../../src/spiffe/workload-api/address.js';

describe('parseWorkloadApiAddress', () => {
  it('accepts unix:///path and unix:/path as the same socket', () => {
    for (const value of ['unix:///run/spire/agent.sock', 'unix:/run/spire/agent.sock']) {
      const address = parseWorkloadApiAddress(value, '--workload-api');
      assert.deepEqual(address, {
        kind: 'unix',
        path: '/run/spire/agent.sock',
        target: 'unix:///run/spire/agent.sock',
        display: 'unix:///run/spire/agent.sock',
      });
    }
  });

  it('accepts tcp with an IP literal and a port', () => {
    assert.equal(parseWorkloadApiAddress('tcp://127.0.0.1:8000', 'x').target, '127.0.0.1:8000');
    assert.equal(parseWorkloadApiAddress('tcp://[::1]:8000', 'x').target, '[::1]:8000');
  });

  const malformed: ReadonlyArray<readonly [string, RegExp]> = [
    ['/run/agent.sock', /is not a URI/],
    ['', /is not a URI/],
    ['unix:agent.sock', /absolute path/],
    ['unix://host/run/agent.sock', /authority/],
    ['unix:///run/agent.sock?x=1', /query/],
    ['unix:///run/agent.sock#x', /fragment/],
    ['unix://user@host/run/agent.sock', /user information/],
    ['unix:///', /socket file/],
    ['http://127.0.0.1:8000', /unsupported scheme 'http'/],
    ['tcp://localhost:8000', /IP address/],
    ['tcp://127.0.0.1', /port/],
    ['tcp://127.0.0.1:8000/foo', /path/],
  ];
  for (const [value, message] of malformed) {
    it(`refuses ${JSON.stringify(value)} naming the source`, () => {
      assert.throws(
        () => parseWorkloadApiAddress(value, '--workload-api'),
        (err: unknown) =>
          err instanceof UsageError && err.message.startsWith('--workload-api:') && message.test(err.message),
      );
    });
  }
});

describe('resolveWorkloadApiAddress', () => {
  it('prefers the explicit address, falls back to SPIFFE_ENDPOINT_SOCKET, and needs one of them', () => {
    const both = resolveWorkloadApiAddress({
      explicit: 'unix:///a.sock',
      explicitSource: '--workload-api',
      endpointSocketEnv: 'unix:///b.sock',
    });
    assert.equal(both.display, 'unix:///a.sock');
    const env = resolveWorkloadApiAddress({ explicitSource: '--workload-api', endpointSocketEnv: 'unix:///b.sock' });
    assert.equal(env.display, 'unix:///b.sock');
    assert.throws(
      () => resolveWorkloadApiAddress({ explicitSource: '--workload-api', endpointSocketEnv: 'b.sock' }),
      /^UsageError: SPIFFE_ENDPOINT_SOCKET: 'b.sock' is not a URI/,
    );
    assert.throws(() => resolveWorkloadApiAddress({ explicitSource: '--workload-api' }), /SPIFFE_ENDPOINT_SOCKET/);
  });
});
