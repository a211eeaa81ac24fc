import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { TestContext } from 'node:test';
import { closeServer, listen, readBody, sendJson } from '@notegate/kit/http';

export type ScriptedHandler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

/**
 * A loopback HTTP server whose answers each test scripts per path (everything else is 404), recording
 * every request: for metadata and token responses the real servers never send.
 */
export class ScriptedServer {
  readonly url: URL;
  readonly requests: { method: string; path: string; body: string }[] = [];
  readonly #routes = new Map<string, ScriptedHandler>();
  #close: () => Promise<void> = async () => undefined;

  private constructor(url: URL) {
    this.url = url;
  }

  /** Stops listening (also done after the test), so another server may take the port. */
  close(): Promise<void> {
    return this.#close();
  }

  /** Listens on 127.0.0.1:`port` (0: any free port). */
  static async start(t: Pick<TestContext, 'after'>, port = 0): Promise<ScriptedServer> {
    let self: ScriptedServer | undefined;
    const server = createServer(async (req, res) => {
      const body = (await readBody(req, 1024 * 1024)).toString('utf8');
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      self?.requests.push({ method: req.method ?? '', path, body });
      const handler = self?.handlerFor(path);
      if (handler) handler(req, res, body);
      else sendJson(res, 404, { error: 'not_found' });
    });
    self = new ScriptedServer(await listen(server, '127.0.0.1', port));
    let closed: Promise<void> | undefined;
    self.#close = () => {
      closed ??= closeServer(server);
      return closed;
    };
    t.after(() => self?.close());
    return self;
  }

  /** `origin` + path. */
  at(path: string): string {
    return new URL(path, this.url).href;
  }

  on(path: string, handler: ScriptedHandler): void {
    this.#routes.set(path, handler);
  }

  handlerFor(path: string): ScriptedHandler | undefined {
    return this.#routes.get(path);
  }

  json(path: string, body: unknown, status = 200, headers: Record<string, string> = {}): void {
    this.on(path, (_req, res) => sendJson(res, status, body, headers));
  }
}
