import {
  createMcpHandler,
  type Implementation,
  isLegacyRequest,
  type McpHttpHandler,
  McpServer,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import type { ScopedTool } from '../tools/tool-catalog.js';
import { McpServerPool } from './server-pool.js';

/**
 * What is prepared once per granted tool set: the modern handler and a pool of
 * instances for each era (an instance stays bound to the era it served).
 */
interface Prepared {
  readonly handler: McpHttpHandler;
  readonly modern: McpServerPool;
  readonly legacy: McpServerPool;
}

/**
 * Hands an authorized request to the official SDK (v2). 2026-07-28 requests
 * go to createMcpHandler (strict, modern only); 2025-era requests (routed by
 * the SDK's own isLegacyRequest, so the two can never disagree) get the
 * stateless idiom with JSON responses: a transport per request. Both take
 * their instance from one pool per granted tool set, prepared once
 * (docs/protocol.md#per-request-cost): each instance registers exactly the
 * tools the token's scopes grant, so tools/list is filtered and an ungranted
 * tool does not exist for that caller. No AuthInfo is passed: the SDK and the
 * tools never see the caller's token.
 */
export class SdkDispatcher {
  readonly #serverInfo: Implementation;
  readonly #prepared = new Map<string, Prepared>();

  constructor(serverInfo: Implementation) {
    this.#serverInfo = serverInfo;
  }

  async dispatch(tools: readonly ScopedTool[], request: Request, parsedBody: unknown): Promise<Response> {
    const entry = this.#entryFor(tools);
    if (await isLegacyRequest(request, parsedBody)) return this.#serveLegacy(entry.legacy, request, parsedBody);
    return entry.handler.fetch(request, { parsedBody });
  }

  /** Instances built so far (the pools' size; for tests and the benchmark). */
  get pooledInstances(): number {
    return [...this.#prepared.values()].reduce((sum, { modern, legacy }) => sum + modern.created + legacy.created, 0);
  }

  async close(): Promise<void> {
    await Promise.all([...this.#prepared.values()].map(({ handler }) => handler.close()));
  }

  #entryFor(tools: readonly ScopedTool[]): Prepared {
    const key = tools.map((tool) => tool.name).join(' ');
    let entry = this.#prepared.get(key);
    if (!entry) {
      const modern = new McpServerPool(() => this.#build(tools));
      const legacy = new McpServerPool(() => this.#build(tools));
      entry = { handler: createMcpHandler(() => modern.acquire(), { legacy: 'reject' }), modern, legacy };
      this.#prepared.set(key, entry);
    }
    return entry;
  }

  async #serveLegacy(pool: McpServerPool, request: Request, parsedBody: unknown): Promise<Response> {
    // Closing the instance after the exchange hands it back to the pool.
    const server = pool.acquire();
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    const teardown = () => void server.close().catch(() => undefined);
    request.signal.addEventListener('abort', teardown, { once: true });
    try {
      return await transport.handleRequest(request, { parsedBody });
    } finally {
      request.signal.removeEventListener('abort', teardown);
      teardown();
    }
  }

  #build(tools: readonly ScopedTool[]): McpServer {
    const server = new McpServer(this.#serverInfo, { capabilities: { tools: { listChanged: false } } });
    for (const tool of tools) tool.register(server);
    return server;
  }
}
