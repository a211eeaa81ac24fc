import type { Readable, Writable } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/client';
import { invalidRequest, readClientLine } from './client-line.js';
import { LineSplitter } from './line-splitter.js';

/** The SDK's stdio transports accept messages up to this size; so does the proxy. */
const MAX_MESSAGE_BYTES = STDIO_DEFAULT_MAX_BUFFER_SIZE;

/** Why the stdio side stopped: the client closed stdin, or stdout can no longer be written. */
export type ChannelEnd = 'input_closed' | 'output_failed';

/**
 * The stdio side of the proxy: newline-delimited JSON-RPC on stdin and stdout (MCP stdio transport).
 * Unlike the SDK's StdioServerTransport, which skips a line that is not JSON without a word, every
 * unreadable line is answered (-32700, -32600) and the channel reads on. Only messages go to stdout.
 */
export class StdioChannel {
  readonly ended: Promise<ChannelEnd>;
  readonly #input: Readable;
  readonly #output: Writable;
  readonly #onData: (chunk: Buffer | string) => void;
  #outputFailed = false;

  constructor(input: Readable, output: Writable, onMessage: (message: JSONRPCMessage) => void) {
    this.#input = input;
    this.#output = output;
    const splitter = new LineSplitter(
      MAX_MESSAGE_BYTES,
      (line) => {
        const read = readClientLine(line);
        if (read.kind === 'message') onMessage(read.message);
        else if (read.kind === 'refused') this.write(read.reply);
      },
      () => this.write(invalidRequest(undefined, `a message is larger than ${MAX_MESSAGE_BYTES} bytes`)),
    );
    this.#onData = (chunk) => splitter.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    this.ended = new Promise((resolve) => {
      const onEnd = () => {
        splitter.end();
        resolve('input_closed');
      };
      input.on('data', this.#onData);
      input.once('end', onEnd);
      input.once('close', onEnd);
      input.once('error', onEnd);
      output.on('error', () => {
        this.#outputFailed = true;
        resolve('output_failed');
      });
    });
  }

  write(message: JSONRPCMessage): void {
    if (this.#outputFailed) return;
    this.#output.write(`${JSON.stringify(message)}\n`);
  }

  /** Stops reading (the proxy is shutting down). */
  stop(): void {
    this.#input.off('data', this.#onData);
    this.#input.pause();
  }
}
