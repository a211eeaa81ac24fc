// Key material and files shared by the benchmark processes (written once per run into a temp dir).

import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CompactSign, compactVerify, exportJWK, generateKeyPair } from 'jose';

export const AUTHZ_ISSUER = 'http://authz.bench';
export const OIDC_ISSUER = 'http://oidc.bench';
export const RESOURCE = 'http://127.0.0.1:9999/mcp';
export const SUBJECT = 'spiffe://example.org/agent';
export const OIDC_CLIENT_ID = 'svc-a';
const IDP_KID = 'bench-idp-es256';
export const CLIENT_KID = 'bench-client-es256';
const AS_KID = 'bench-as-es256';

const POLICY = `trust_domain: example.org
grants:
  - spiffe_id: ${SUBJECT}
    resources:
      - resource: ${RESOURCE}
        scopes: [notes:read, notes:write]
`;

async function privateJwk(kid) {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  return { ...(await exportJWK(privateKey)), kid, alg: 'ES256', use: 'sig' };
}

function publicOf(jwk) {
  const { d: _private, ...rest } = jwk;
  return rest;
}

/** Writes policy.yaml, bundle.json (the identity provider's public key) and keys.json (private keys). */
export async function writeFixtures(dir) {
  const keys = {
    idp: await privateJwk(IDP_KID),
    client: await privateJwk(CLIENT_KID),
    as: await privateJwk(AS_KID),
  };
  await writeFile(join(dir, 'keys.json'), JSON.stringify(keys));
  // SPIFFE bundle §4: a JWT-SVID key carries use "jwt-svid".
  await writeFile(join(dir, 'bundle.json'), JSON.stringify({ keys: [{ ...publicOf(keys.idp), use: 'jwt-svid' }] }));
  await writeFile(join(dir, 'policy.yaml'), POLICY, { mode: 0o644 });
  return { keys, publicOf };
}

export { publicOf };

const encoder = new TextEncoder();

/**
 * The crypto of one token and nothing else: jose verifies the ES256 assertion with a pre-imported
 * key and signs an access token like notegate's. The ceiling loop and the bare server both use it.
 */
export async function verifyAndSign(assertion, idpPublicKey, asPrivateKey, asKid) {
  await compactVerify(assertion, idpPublicKey, { algorithms: ['ES256'] });
  const nowS = Math.floor(Date.now() / 1000);
  const claims = {
    iss: AUTHZ_ISSUER,
    sub: SUBJECT,
    client_id: SUBJECT,
    aud: RESOURCE,
    scope: 'notes:read',
    iat: nowS,
    exp: nowS + 300,
    jti: randomBytes(16).toString('hex'),
  };
  return new CompactSign(encoder.encode(JSON.stringify(claims)))
    .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: asKid })
    .sign(asPrivateKey);
}
