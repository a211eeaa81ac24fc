import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { agentConfig, hclString, serverConfig } from '../../../src/identity-provider/spire/spire-config.js';

describe('SPIRE configuration text', () => {
  const cases: [string, string][] = [
    ['/tmp/run/server', '"/tmp/run/server"'],
    ['a "quoted" name', '"a \\"quoted\\" name"'],
    ['back\\slash', '"back\\\\slash"'],
  ];
  for (const [value, quoted] of cases) {
    it(`quotes ${JSON.stringify(value)} as an HCL string`, () => assert.equal(hclString(value), quoted));
  }

  it('binds the server to loopback on the given port, with the key type and fast entry reloads', () => {
    const text = serverConfig({
      trustDomain: 'example.org',
      port: 18081,
      socketPath: '/r/server/private/api.sock',
      dataDir: '/r/server/data',
      jwtKeyType: 'rsa-2048',
    });
    assert.match(text, /bind_address = "127\.0\.0\.1"\n\s+bind_port = "18081"/);
    assert.match(text, /jwt_key_type = "rsa-2048"/);
    assert.match(text, /cache_reload_interval = "1s"/);
    assert.match(text, /connection_string = "\/r\/server\/data\/datastore\.sqlite3"/);
  });

  it('gives the agent its join token by file, never on its command line, and logs at DEBUG', () => {
    const text = agentConfig({
      trustDomain: 'example.org',
      serverPort: 18081,
      socketPath: '/r/agents/shared/public/api.sock',
      dataDir: '/r/agents/shared/data',
      trustBundlePath: '/r/bootstrap.pem',
      joinTokenFile: '/r/agents/shared/join-token',
    });
    assert.match(text, /join_token_file = "\/r\/agents\/shared\/join-token"/);
    assert.doesNotMatch(text, /join_token =/);
    assert.match(text, /log_level = "DEBUG"/);
    assert.match(text, /sync_interval = "1s"/);
    assert.match(text, /WorkloadAttestor "unix"/);
  });
});
