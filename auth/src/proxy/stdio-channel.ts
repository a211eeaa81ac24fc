import type { Readable, Writable } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/client';
import { invalidRequest, readClientLine } from './client-line.js';
import { LineSplitter } from './line-splitter.js';

/** The SDK's stdio transports accept messages up to this size; so does the proxy. */
const MAX_MESSAGE_BYTES = STDIO_DEFAULT_MAX_BUFFER_SIZE;

/** Why the stdio side stopped: the client closed stdin, or stdout can no longer be written. */
export type ChannelEnd = 'input_closed' | 'output_failed';

export interface StdioChannelOptions {
  /** Whether the relay takes another message now; while it does not, stdin is not read (see wake). */
  readonly hasRoom?: () => boolean;
}

/** One line read, waiting to be handled: a message, or the -32600 of a line over the size limit. */
type Pending = { readonly kind: 'line'; readonly line: string } | { readonly kind: 'oversize' };

/**
 * The stdio side of the proxy: newline-delimited JSON-RPC on stdin and stdout (MCP stdio transport).
 * Unlike the SDK's StdioServerTransport, which skips a line that is not JSON without a word, every
 * unreadable line is answered (-32700, -32600) and the channel reads on. Only messages go to stdout.
 *
 * Back-pressure (docs/protocol.md#proxy): the lines of one chunk of stdin are handled one at a time,
 * each only once stdout has drained and the relay has room, and stdin is paused until the chunk is
 * done. So a client that writes faster than it reads, or than the server answers, is slowed down to
 * their pace: the proxy holds at most one chunk of input, stdout's buffer and the relay's messages in
 * flight, whatever the client sends.
 */
export class StdioChannel {
  readonly ended: Promise<ChannelEnd>;
  readonly #input: Readable;
  readonly #output: Writable;
  readonly #hasRoom: () => boolean;
  readonly #onData: (chunk: Buffer | string) => void;
  readonly #pending: Pending[] = [];
  #next = 0;
  #handling: Promise<void> | undefined;
  #outputFailed = false;
  #stopped = false;
  #wake: (() => void) | undefined;

  constructor(
    input: Readable,
    output: Writable,
    onMessage: (message: JSONRPCMessage) => void,
    options: StdioChannelOptions = {},
  ) {
    this.#input = input;
    this.#output = output;
    this.#hasRoom = options.hasRoom ?? (() => true);
    const splitter = new LineSplitter(
      MAX_MESSAGE_BYTES,
      (line) => this.#pending.push({ kind: 'line', line }),
      () => this.#pending.push({ kind: 'oversize' }),
    );
    const handle = (item: Pending) => {
      if (item.kind === 'oversize') {
        this.write(invalidRequest(undefined, `a message is larger than ${MAX_MESSAGE_BYTES} bytes`));
        return;
      }
      const read = readClientLine(item.line);
      if (read.kind === 'message') onMessage(read.message);
      else if (read.kind === 'refused') this.write(read.reply);
    };
    this.#onData = (chunk) => {
      splitter.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
      if (this.#pending.length === 0) return;
      input.pause();
      void this.#handlePending(handle).then(() => {
        if (!this.#stopped) input.resume();
      });
    };
    output.on('drain', () => this.wake());
    this.ended = new Promise((resolve) => {
      let ending = false;
      const onEnd = () => {
        if (ending) return;
        ending = true;
        splitter.end();
        void this.#handlePending(handle).then(() => resolve('input_closed'));
      };
      input.on('data', this.#onData);
      input.once('end', onEnd);
      input.once('close', onEnd);
      input.once('error', onEnd);
      output.on('error', () => {
        this.#outputFailed = true;
        this.wake();
        resolve('output_failed');
      });
    });
  }

  write(message: JSONRPCMessage): void {
    if (this.#outputFailed) return;
    this.#output.write(`${JSON.stringify(message)}\n`);
  }

  /** Something the channel may be waiting for happened: stdout drained, or the relay made room. */
  wake(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  /** Stops reading (the proxy is shutting down). */
  stop(): void {
    this.#stopped = true;
    this.#input.off('data', this.#onData);
    this.#input.pause();
    this.wake();
  }

  /**
   * Handles the lines read so far, in order, each once stdout and the relay can take what it brings;
   * one run at a time (a run under way takes the lines added meanwhile too).
   */
  #handlePending(handle: (item: Pending) => void): Promise<void> {
    this.#handling ??= (async () => {
      // From the next microtask on, so that #handling is set before this run clears it.
      await Promise.resolve();
      try {
        while (this.#next < this.#pending.length && !this.#stopped && !this.#outputFailed) {
          if (this.#mustWait()) await this.#ready();
          if (this.#stopped || this.#outputFailed) break;
          const item = this.#pending[this.#next];
          this.#next += 1;
          if (item !== undefined) handle(item);
        }
      } finally {
        this.#pending.length = 0;
        this.#next = 0;
        this.#handling = undefined;
      }
    })();
    return this.#handling;
  }

  #mustWait(): boolean {
    return (this.#output.writableNeedDrain || !this.#hasRoom()) && !this.#stopped && !this.#outputFailed;
  }

  async #ready(): Promise<void> {
    while (this.#mustWait()) {
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
    }
  }
}
