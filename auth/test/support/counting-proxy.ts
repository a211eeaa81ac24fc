import { createServer, request } from 'node:http';
import { closeServer, listen } from '@notegate/kit/http';

/**
 * A loopback HTTP proxy in front of one server that counts every request it forwards: a server-side
 * witness that a client did (or never did) talk to that server.
 */
export class CountingProxy {
  readonly url: URL;
  requests = 0;
  readonly #server: ReturnType<typeof createServer>;

  private constructor(server: ReturnType<typeof createServer>, url: URL) {
    this.#server = server;
    this.url = url;
  }

  /** Listens on 127.0.0.1:`port` (0: any) and forwards to `target()`, read per request. */
  static async start(target: () => URL, port = 0): Promise<CountingProxy> {
    let self: CountingProxy | undefined;
    const server = createServer((req, res) => {
      if (self) self.requests += 1;
      const upstream = request(
        new URL(req.url ?? '/', target()),
        { method: req.method, headers: req.headers },
        (reply) => {
          res.writeHead(reply.statusCode ?? 502, reply.headers);
          reply.pipe(res);
        },
      );
      upstream.on('error', () => {
        res.writeHead(502);
        res.end();
      });
      req.pipe(upstream);
    });
    self = new CountingProxy(server, await listen(server, '127.0.0.1', port));
    return self;
  }

  close(): Promise<void> {
    return closeServer(this.#server);
  }
}
