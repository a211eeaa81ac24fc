import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import { closeServer, listen, sendJson } from '@notegate/kit/http';
import { authorizationServerMetadata } from '../authz/metadata.js';
import { authorizationServerMetadataUrl } from '../oauth/well-known.js';

/**
 * Scenario 4's authorization server that nobody trusts: a loopback listener that counts every request
 * it receives. It answers like a real one (RFC 8414 metadata naming itself), so an agent that skipped
 * its allowlist would go on to ask for an SVID and a token — and both would show in the counts.
 */
export class UntrustedIssuer {
  private constructor(
    private readonly server: Server,
    readonly issuer: string,
    /** `METHOD path` of every request received, in order. */
    readonly requests: readonly string[],
  ) {}

  /**
   * Listens on `host`:`port` (loopback, a free port by default); `issuer` is the URL it names itself
   * by, by default the address it bound (deploy/spire passes its service name).
   */
  static async start(options: { host?: string; port?: number; issuer?: string } = {}): Promise<UntrustedIssuer> {
    const requests: string[] = [];
    const self = { issuer: options.issuer ?? '' };
    const server = createServer((req, res) => {
      requests.push(`${req.method ?? '?'} ${req.url ?? '?'}`);
      answer(req, res, self.issuer);
    });
    const bound = await listen(server, options.host ?? '127.0.0.1', options.port ?? 0);
    self.issuer ||= bound.origin;
    return new UntrustedIssuer(server, self.issuer, requests);
  }

  close(): Promise<void> {
    return closeServer(this.server);
  }
}

function answer(req: IncomingMessage, res: ServerResponse, issuer: string): void {
  if (req.url !== authorizationServerMetadataUrl(issuer).pathname) {
    sendJson(res, 404, { error: 'not_found' });
    return;
  }
  sendJson(res, 200, authorizationServerMetadata(issuer));
}
