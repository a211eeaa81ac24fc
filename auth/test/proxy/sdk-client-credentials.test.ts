import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type {
  AuthorizationServerMetadata,
  FetchLike,
  StaticPrivateKeyJwtProviderOptions,
} from '@modelcontextprotocol/client';
import { Client, StaticPrivateKeyJwtProvider, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { JwtSvidSource } from '../../src/agent/fetch-svid.js';
import { JWT_SPIFFE_ASSERTION_TYPE } from '../../src/oauth/spiffe-client-auth.js';
import { type AgentStack, startAgentStack } from '../support/agent-stack.js';
import { Cleanups } from '../support/cleanups.js';

/**
 * The official SDK v2 client's own client-credentials providers against notegate authz, with a
 * JWT-SVID as the client assertion (docs/protocol.md#the-sdks-client-credentials-providers): where the
 * shipped provider stops, and the configuration that works.
 */
describe("the SDK v2 client's client-credentials providers with a JWT-SVID", () => {
  const cleanups = new Cleanups();
  let stack: AgentStack;
  let svids: JwtSvidSource;
  let metadata: AuthorizationServerMetadata;
  before(async () => {
    stack = await startAgentStack(cleanups);
    svids = stack.agentSvidSource(cleanups);
    const document = await fetch(new URL('/.well-known/oauth-authorization-server', stack.issuer));
    metadata = (await document.json()) as AuthorizationServerMetadata;
  });
  after(() => cleanups.run());

  /** Connects an SDK client with `authProvider` and lists the tools; records the token requests. */
  async function listTools(authProvider: StaticPrivateKeyJwtProvider) {
    const tokenRequests: string[] = [];
    const recording: FetchLike = async (url, init) => {
      if (String(url).endsWith('/token')) tokenRequests.push(String(init?.body));
      return fetch(url, init);
    };
    const transport = new StreamableHTTPClientTransport(new URL(stack.notesA.resource), {
      authProvider,
      fetch: recording,
    });
    const client = new Client({ name: 'sdk-client-credentials', version: '1.0.0' });
    cleanups.after(() => client.close());
    const outcome = await client
      .connect(transport)
      .then(() => client.listTools())
      .then(
        (listed) => ({ tools: listed.tools.map((tool) => tool.name) }),
        (err: unknown) => ({ error: err instanceof Error ? err.message : String(err) }),
      );
    return { outcome, tokenRequests };
  }

  const options = (assertion: string): StaticPrivateKeyJwtProviderOptions => ({
    clientId: 'spiffe://example.org/agent',
    jwtBearerAssertion: assertion,
    expectedIssuer: stack.issuer,
    scope: 'notes:read notes:write',
  });

  it('the shipped StaticPrivateKeyJwtProvider stops at its own metadata schema: no authorization_endpoint', async () => {
    const { svid } = await svids.fetchJwtSvid({ audience: stack.issuer });
    const { outcome, tokenRequests } = await listTools(new StaticPrivateKeyJwtProvider(options(svid)));
    assert.ok('error' in outcome);
    assert.match(outcome.error, /authorization_endpoint/);
    assert.equal(tokenRequests.length, 0, 'the token endpoint is never reached');
  });

  it('given the issuer metadata, it reaches authz, which refuses the jwt-bearer assertion type (invalid_client)', async () => {
    class Preconfigured extends StaticPrivateKeyJwtProvider {
      discoveryState() {
        return { authorizationServerUrl: stack.issuer, authorizationServerMetadata: metadata };
      }
      saveDiscoveryState() {}
    }
    const { svid } = await svids.fetchJwtSvid({ audience: stack.issuer });
    const { outcome, tokenRequests } = await listTools(new Preconfigured(options(svid)));
    assert.ok('error' in outcome);
    assert.match(outcome.error, /client_assertion_type must be urn:ietf:params:oauth:client-assertion-type:jwt-spiffe/);
    assert.ok(tokenRequests.length >= 1);
    assert.match(
      tokenRequests[0] ?? '',
      /client_assertion_type=urn%3Aietf%3Aparams%3Aoauth%3Aclient-assertion-type%3Ajwt-bearer/,
    );
    const denial = JSON.parse(stack.authzAudit.at(-1) ?? '{}');
    assert.equal(denial.decision, 'deny');
    assert.match(denial.reason, /^invalid_client: .*jwt-bearer/);
  });

  it('works with the issuer metadata and a fresh JWT-SVID per token request sent as jwt-spiffe', async () => {
    const issuer = stack.issuer;
    class SpiffeClientCredentials extends StaticPrivateKeyJwtProvider {
      constructor(svidSource: JwtSvidSource) {
        super(options('unused: a fresh SVID is fetched for every token request'));
        this.addClientAuthentication = async (_headers, params) => {
          const { svid } = await svidSource.fetchJwtSvid({ audience: issuer });
          params.set('client_assertion', svid);
          params.set('client_assertion_type', JWT_SPIFFE_ASSERTION_TYPE);
        };
      }
      discoveryState() {
        return { authorizationServerUrl: issuer, authorizationServerMetadata: metadata };
      }
      saveDiscoveryState() {}
    }
    const { outcome, tokenRequests } = await listTools(new SpiffeClientCredentials(svids));
    assert.deepEqual(outcome, { tools: ['notes.read', 'notes.search', 'notes.write'] });
    assert.equal(tokenRequests.length, 1);
    const form = new URLSearchParams(tokenRequests[0]);
    assert.equal(form.get('grant_type'), 'client_credentials');
    assert.equal(form.get('resource'), stack.notesA.resource);
    assert.equal(form.get('scope'), 'notes:read notes:write');
  });
});
