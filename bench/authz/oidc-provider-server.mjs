// oidc-provider 9 as the peer token server: client credentials, private_key_jwt (ES256), JWT access
// tokens for one resource (config as in the facts, auth-facts §6.2 / stack-limits §5).
// Usage: node oidc-provider-server.mjs <fixtures-dir>  → prints "listening on <url>".
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { join } from 'node:path';
import Provider, { errors } from 'oidc-provider';
import { CLIENT_KID, OIDC_CLIENT_ID, OIDC_ISSUER, publicOf, RESOURCE } from './fixtures.mjs';

const [dir] = process.argv.slice(2);
const keys = JSON.parse(await readFile(join(dir, 'keys.json'), 'utf8'));
const provider = new Provider(OIDC_ISSUER, {
  jwks: { keys: [keys.as] },
  clients: [
    {
      client_id: OIDC_CLIENT_ID,
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
      token_endpoint_auth_method: 'private_key_jwt',
      token_endpoint_auth_signing_alg: 'ES256',
      id_token_signed_response_alg: 'ES256',
      jwks: { keys: [{ ...publicOf(keys.client), kid: CLIENT_KID }] },
      scope: 'notes:read notes:write',
    },
  ],
  clientAuthMethods: ['private_key_jwt'],
  enabledJWA: { clientAuthSigningAlgValues: ['ES256'] },
  scopes: ['notes:read', 'notes:write'],
  ttl: { ClientCredentials: 300 },
  features: {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => RESOURCE,
      useGrantedResource: () => true,
      getResourceServerInfo: (_ctx, resource) => {
        if (resource !== RESOURCE) throw new errors.InvalidTarget();
        return {
          scope: 'notes:read notes:write',
          audience: RESOURCE,
          accessTokenTTL: 300,
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg: 'ES256' } },
        };
      },
    },
  },
});
const server = createServer(provider.callback());
server.listen(0, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${server.address().port}/`));
