import type { McpServer } from '@modelcontextprotocol/server';

/** Idle instances kept per pool; more are created under load and dropped when they come back. */
const MAX_IDLE_SERVERS = 32;

/**
 * Reuses McpServer instances across exchanges of one era. The SDK's modern
 * entry connects the factory's instance to a single-exchange transport,
 * re-binds the negotiated revision and client identity on every exchange, and
 * closes the instance when the exchange ends; the legacy path connects it to a
 * stateless transport and closes it after the response. An instance is handed
 * out again only after that close (so never to two exchanges at once, which
 * the SDK also asserts). Building an instance per request costs the tool registration and,
 * on every tools/call, the JSON Schema conversion of the tool's input schema;
 * a reused instance has both cached.
 */
export class McpServerPool {
  readonly #create: () => McpServer;
  readonly #idle: McpServer[] = [];
  #created = 0;

  constructor(create: () => McpServer) {
    this.#create = create;
  }

  get created(): number {
    return this.#created;
  }

  acquire(): McpServer {
    const server = this.#idle.pop() ?? this.#build();
    let returned = false;
    server.server.onclose = () => {
      if (returned) return;
      returned = true;
      if (this.#idle.length < MAX_IDLE_SERVERS) this.#idle.push(server);
    };
    return server;
  }

  #build(): McpServer {
    this.#created++;
    return this.#create();
  }
}
