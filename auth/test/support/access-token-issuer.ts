import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { closeServer, listen, sendJson } from '@notegate/kit/http';
import { base64url, type CryptoKey, exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';

export const TEST_SUBJECT = 'spiffe://example.org/agent';

interface SigningKey {
  readonly kid: string;
  readonly privateKey: CryptoKey;
  readonly publicJwk: JWK;
}

export interface SignOptions {
  /** Claims merged over the defaults (iss, sub, client_id, aud, scope, iat, exp, jti). */
  readonly claims?: Readonly<Record<string, unknown>>;
  /** Default claims to leave out. */
  readonly omit?: readonly string[];
  /** Header members merged over { alg: ES256, typ: at+jwt, kid }. */
  readonly header?: Readonly<Record<string, unknown>>;
  /** Sign with a key that is not in the published key set. */
  readonly unpublishedKey?: boolean;
}

/**
 * A stand-in authorization server for tests and benchmarks: P-256 keys, the
 * key set served over real loopback HTTP (counting fetches, with an outage
 * switch), and access tokens in the format of docs/protocol.md#access-token signed with jose.
 */
export class TestAccessTokenIssuer {
  readonly issuer: string;
  readonly jwksUri: string;
  readonly resource: string;
  /** GET requests the key-set endpoint has answered or refused. */
  fetchCount = 0;
  /** While true the key-set endpoint answers 503. */
  outage = false;
  readonly #server: ReturnType<typeof createServer>;
  readonly #now: () => number;
  #published: SigningKey[];
  readonly #unpublished: SigningKey;

  private constructor(
    server: ReturnType<typeof createServer>,
    base: URL,
    resource: string,
    now: () => number,
    keys: SigningKey[],
  ) {
    this.#server = server;
    this.issuer = `${base.origin}/issuer`;
    this.jwksUri = `${base.origin}/jwks.json`;
    this.resource = resource;
    this.#now = now;
    const [current, unpublished] = keys;
    if (!current || !unpublished) throw new Error('two keys expected');
    this.#published = [current];
    this.#unpublished = unpublished;
  }

  /** `now` is in milliseconds (the clock the server under test uses). */
  static async start(resource: string, now: () => number = Date.now): Promise<TestAccessTokenIssuer> {
    const keys = [await newKey(), await newKey()];
    let self: TestAccessTokenIssuer | undefined;
    const server = createServer((req, res) => {
      if (!self || req.url !== '/jwks.json') return sendJson(res, 404, {});
      self.fetchCount++;
      if (self.outage) return sendJson(res, 503, { error: 'temporarily_unavailable' });
      sendJson(res, 200, { keys: self.#published.map((key) => key.publicJwk) });
    });
    const base = await listen(server, '127.0.0.1', 0);
    self = new TestAccessTokenIssuer(server, base, resource, now, keys);
    return self;
  }

  get kid(): string {
    return this.#current().kid;
  }

  /** Publishes a new key and signs with it from now on; with `retire`, the older keys leave the key set. */
  async rotate({ retire = false }: { retire?: boolean } = {}): Promise<string> {
    const key = await newKey();
    this.#published = retire ? [key] : [key, ...this.#published];
    return key.kid;
  }

  async sign(options: SignOptions = {}): Promise<string> {
    const key = options.unpublishedKey ? this.#unpublished : this.#current();
    const nowS = Math.floor(this.#now() / 1000);
    const defaults: Record<string, unknown> = {
      iss: this.issuer,
      sub: TEST_SUBJECT,
      client_id: TEST_SUBJECT,
      aud: this.resource,
      scope: 'notes:read notes:write',
      iat: nowS,
      exp: nowS + 300,
      jti: randomBytes(8).toString('hex'),
    };
    for (const name of options.omit ?? []) delete defaults[name];
    const payload = { ...defaults, ...options.claims };
    const header = { alg: 'ES256', typ: 'at+jwt', kid: key.kid, ...options.header };
    if (header.alg !== 'ES256') return unsignedToken(header, payload);
    return new SignJWT(payload).setProtectedHeader({ ...header, alg: 'ES256' }).sign(key.privateKey);
  }

  close(): Promise<void> {
    return closeServer(this.#server);
  }

  #current(): SigningKey {
    const [current] = this.#published;
    if (!current) throw new Error('no published key');
    return current;
  }
}

/** A token whose header claims another algorithm, with a junk signature (it must never verify). */
function unsignedToken(header: Record<string, unknown>, payload: Record<string, unknown>): string {
  const encode = (value: unknown) => base64url.encode(JSON.stringify(value));
  return `${encode(header)}.${encode(payload)}.${base64url.encode(randomBytes(64))}`;
}

async function newKey(): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const kid = randomBytes(6).toString('hex');
  return { kid, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' } };
}
