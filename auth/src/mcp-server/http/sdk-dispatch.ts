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
 * Hands an authorized request to the official SDK (v2). 2026-07-28 requests
 * go to createMcpHandler (strict, modern only) backed by a pool of instances;
 * 2025-era requests (routed by the SDK's own isLegacyRequest, so the two can
 * never disagree) get the stateless idiom with JSON responses: a fresh
 * instance and transport per request. Either way the instance registers
 * exactly the tools the token's scopes grant, so tools/list is filtered and an
 * ungranted tool does not exist for that caller. No AuthInfo is passed: the
 * SDK and the tools never see the caller's token.
 */
export class SdkDispatcher {
  readonly #serverInfo: Implementation;
  readonly #modern = new Map<string, { handler: McpHttpHandler; pool: McpServerPool }>();

  constructor(serverInfo: Implementation) {
    this.#serverInfo = serverInfo;
  }

  async dispatch(tools: readonly ScopedTool[], request: Request, parsedBody: unknown): Promise<Response> {
    if (await isLegacyRequest(request, parsedBody)) return this.#serveLegacy(tools, request, parsedBody);
    return this.#modernFor(tools).handler.fetch(request, { parsedBody });
  }

  /** Instances built so far for 2026-07-28 traffic (the pools' size; for tests and the benchmark). */
  get pooledInstances(): number {
    return [...this.#modern.values()].reduce((sum, { pool }) => sum + pool.created, 0);
  }

  async close(): Promise<void> {
    await Promise.all([...this.#modern.values()].map(({ handler }) => handler.close()));
  }

  #modernFor(tools: readonly ScopedTool[]): { handler: McpHttpHandler; pool: McpServerPool } {
    const key = tools.map((tool) => tool.name).join(' ');
    let entry = this.#modern.get(key);
    if (!entry) {
      const pool = new McpServerPool(() => this.#build(tools));
      entry = { handler: createMcpHandler(() => pool.acquire(), { legacy: 'reject' }), pool };
      this.#modern.set(key, entry);
    }
    return entry;
  }

  async #serveLegacy(tools: readonly ScopedTool[], request: Request, parsedBody: unknown): Promise<Response> {
    const server = this.#build(tools);
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
