import type { JSONRPCMessage, JSONRPCRequest, RequestId } from '@modelcontextprotocol/client';
import { isRecord } from '@notegate/kit';
import { transportFailed } from '../agent/agent-errors.js';
import { invalidRequest } from './client-line.js';
import type { FailureContext } from './failure-reply.js';
import { asAgentError, failureReply } from './failure-reply.js';
import type { SendOptions } from './upstream.js';

/**
 * docs/protocol.md#proxy: messages of the client on their way up at once (requests until answered,
 * notifications and responses until sent); beyond, stdin waits. Bounds what a client that writes
 * without waiting can make the proxy hold.
 */
export const MAX_MESSAGES_IN_FLIGHT = 32;

/** The HTTP leg as the relay sees it (an Upstream). */
export interface UpstreamPort {
  send(message: JSONRPCMessage, options?: SendOptions): Promise<void>;
  setProtocolVersion(version: string): void;
}

export interface RelayOptions {
  readonly upstream: UpstreamPort;
  /** Writes one message to the stdio client. */
  readonly write: (message: JSONRPCMessage) => void;
  /** One line for the operator (stderr). */
  readonly log: (line: string) => void;
  /** Bound of each request, answer included. */
  readonly timeoutMs: number;
  readonly context: () => FailureContext;
  /** A message in flight is done: the relay may have room again (see hasRoom). */
  readonly onRoom?: () => void;
}

interface Pending {
  readonly method: string;
  readonly controller: AbortController;
  readonly timer: NodeJS.Timeout;
}

/**
 * Relays JSON-RPC messages between the stdio client and the upstream server without interpreting
 * them (docs/protocol.md#proxy): requests, notifications and responses go up unchanged, and whatever
 * the server sends comes back unchanged. The relay only keeps track of the requests in flight, so
 * each gets exactly one answer: the server's, or an error when the request failed, timed out or its
 * response stream ended without an answer. It reads two things: the version an `initialize` result
 * names (2025-11-25 wants it in a header on later requests), and `notifications/cancelled`, which also
 * aborts the cancelled request's HTTP exchange (MCP: no answer is expected after a cancellation).
 */
export class Relay {
  readonly #options: RelayOptions;
  readonly #pending = new Map<RequestId, Pending>();
  /** Notifications and responses being sent. */
  #sending = 0;
  #onIdle: (() => void) | undefined;

  constructor(options: RelayOptions) {
    this.#options = options;
  }

  get inFlight(): number {
    return this.#pending.size;
  }

  /** Whether another message of the client may go up now (MAX_MESSAGES_IN_FLIGHT). */
  hasRoom(): boolean {
    return this.#pending.size + this.#sending < MAX_MESSAGES_IN_FLIGHT;
  }

  /** `message` was validated when it was read; only its kind is told apart here. */
  fromClient(message: JSONRPCMessage): void {
    if ('method' in message && 'id' in message) {
      this.#request(message);
      return;
    }
    if ('method' in message && message.method === 'notifications/cancelled') this.#cancel(message.params);
    this.#sending += 1;
    this.#options.upstream
      .send(message)
      .catch((err: unknown) => {
        const { resource } = this.#options.context();
        this.#options.log(`could not relay a ${describe(message)}: ${asAgentError(err, resource).message}`);
      })
      .finally(() => {
        this.#sending -= 1;
        this.#options.onRoom?.();
      });
  }

  /** `message` was validated by the transport; only its kind is told apart here. */
  fromUpstream(message: JSONRPCMessage): void {
    if ('method' in message || message.id === undefined) {
      this.#options.write(message);
      return;
    }
    const pending = this.#pending.get(message.id);
    if (pending === undefined) {
      this.#options.log(`dropped an answer to request ${JSON.stringify(message.id)}, which is no longer in flight`);
      return;
    }
    if (pending.method === 'initialize' && 'result' in message) {
      const version = message.result.protocolVersion;
      if (typeof version === 'string') this.#options.upstream.setProtocolVersion(version);
    }
    this.#settle(message.id);
    this.#options.write(message);
  }

  /** Resolves once no request is in flight. */
  idle(): Promise<void> {
    if (this.#pending.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      this.#onIdle = resolve;
    });
  }

  /** Abandons every request in flight, unanswered (the client is gone). */
  abandon(): void {
    for (const [id, pending] of this.#pending) {
      pending.controller.abort();
      this.#settle(id);
    }
  }

  #request(request: JSONRPCRequest): void {
    const { id, method } = request;
    if (this.#pending.has(id)) {
      this.#options.write(invalidRequest(id, `request id ${JSON.stringify(id)} is already in flight`));
      return;
    }
    const controller = new AbortController();
    const seconds = this.#options.timeoutMs / 1000;
    const timer = setTimeout(() => {
      const { resource } = this.#options.context();
      controller.abort();
      this.#answerError(
        id,
        transportFailed('mcp_call', 'timeout', `${resource} did not answer ${method} within ${seconds} s`),
      );
    }, this.#options.timeoutMs);
    this.#pending.set(id, { method, controller, timer });
    this.#options.upstream
      .send(request, {
        signal: controller.signal,
        onStreamEnd: () => {
          const { resource } = this.#options.context();
          this.#answerError(
            id,
            transportFailed('mcp_call', 'no_answer', `${resource} ended the response to ${method} without an answer`),
          );
        },
      })
      .catch((err: unknown) => this.#answerError(id, err));
  }

  /** Answers request `id` with an error, unless it was answered, cancelled or timed out meanwhile. */
  #answerError(id: RequestId, err: unknown): void {
    if (!this.#pending.has(id)) return;
    this.#settle(id);
    const reply = failureReply(err, id, this.#options.context());
    if ('error' in reply) this.#options.log(`request ${JSON.stringify(id)} failed: ${reply.error.message}`);
    this.#options.write(reply);
  }

  #cancel(params: unknown): void {
    const requestId = isRecord(params) ? params.requestId : undefined;
    if (typeof requestId !== 'string' && typeof requestId !== 'number') return;
    const pending = this.#pending.get(requestId);
    if (pending === undefined) return;
    pending.controller.abort();
    this.#settle(requestId);
  }

  #settle(id: RequestId): void {
    const pending = this.#pending.get(id);
    if (pending === undefined) return;
    clearTimeout(pending.timer);
    this.#pending.delete(id);
    this.#options.onRoom?.();
    if (this.#pending.size === 0) {
      this.#onIdle?.();
      this.#onIdle = undefined;
    }
  }
}

function describe(message: JSONRPCMessage): string {
  return 'method' in message ? `${message.method} notification` : 'response';
}
