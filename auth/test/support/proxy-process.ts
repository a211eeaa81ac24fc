import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { spawn } from 'node:child_process';
import { waitFor } from '@notegate/kit/testing';
import type { Registrar } from './cleanups.js';
import { MAIN } from './cli-process.js';

/** A JSON-RPC message as the tests read it from the proxy's stdout. */
export type WireMessage = Record<string, unknown> & {
  readonly id?: string | number;
  readonly result?: Record<string, unknown>;
  readonly error?: { readonly code: number; readonly message: string; readonly data?: Record<string, unknown> };
};

/** A JWS compact serialization (an access token or an SVID): never on the proxy's stdout or stderr. */
export const JWT_PATTERN = /eyJ[A-Za-z0-9_-]+\.eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/;

/**
 * `notegate proxy <args>` as a child process spoken to line by line, as an MCP host would: what it
 * writes on stdout is parsed into messages, stderr is kept. Killed (SIGKILL) after the test.
 */
export class ProxyProcess {
  readonly child: ChildProcessWithoutNullStreams;
  readonly messages: WireMessage[] = [];
  readonly output = { stdout: '', stderr: '' };
  readonly exited: Promise<number | null>;
  #nextId = 1;

  private constructor(child: ChildProcessWithoutNullStreams) {
    this.child = child;
    child.stdout.on('data', (chunk: Buffer) => {
      this.output.stdout += chunk.toString();
      const lines = this.output.stdout.split('\n');
      this.messages.length = 0;
      for (const line of lines.slice(0, -1)) this.messages.push(JSON.parse(line) as WireMessage);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      this.output.stderr += chunk.toString();
    });
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  }

  static start(t: Registrar, args: readonly string[], env: NodeJS.ProcessEnv = process.env): ProxyProcess {
    const child = spawn(process.execPath, [MAIN, 'proxy', ...args], { stdio: 'pipe', env });
    t.after(() => child.kill('SIGKILL'));
    return new ProxyProcess(child);
  }

  /** Writes one raw line (a newline is added). */
  writeLine(line: string): void {
    this.child.stdin.write(`${line}\n`);
  }

  /** Sends a request and waits for the message that answers it. */
  async request(method: string, params: Record<string, unknown> = {}, timeoutMs = 20_000): Promise<WireMessage> {
    const id = this.#nextId++;
    this.writeLine(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    return this.answerTo(id, timeoutMs);
  }

  answerTo(id: string | number, timeoutMs = 20_000): Promise<WireMessage> {
    return waitFor(`the answer to request ${id}`, () => this.messages.find((m) => m.id === id), timeoutMs);
  }

  /** The 2025-11-25 opening: initialize, then notifications/initialized. */
  async initialize(): Promise<WireMessage> {
    const answer = await this.request('initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'proxy-test', version: '1.0.0' },
    });
    this.writeLine(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    return answer;
  }

  closeStdin(): void {
    this.child.stdin.end();
  }
}
