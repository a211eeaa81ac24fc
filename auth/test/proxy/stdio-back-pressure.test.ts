import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { PassThrough, Writable } from 'node:stream';
import { describe, it } from 'node:test';
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { waitFor } from '@notegate/kit/testing';
import { MAX_MESSAGES_IN_FLIGHT, Relay } from '../../src/proxy/relay.js';
import { StdioChannel } from '../../src/proxy/stdio-channel.js';
import { MAIN } from '../support/cli-process.js';

const OUTPUT_HIGH_WATER_MARK_BYTES = 16 * 1024;

/** A stdout whose reader takes nothing until `open()`: what it was given waits in its buffer. */
class UnreadOutput extends Writable {
  text = '';
  #open = false;
  readonly #waiting: Array<() => void> = [];

  constructor() {
    super({ highWaterMark: OUTPUT_HIGH_WATER_MARK_BYTES });
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    this.text += chunk.toString();
    if (this.#open) done();
    else this.#waiting.push(done);
  }

  open(): void {
    this.#open = true;
    for (const done of this.#waiting.splice(0)) done();
  }

  get lines(): string[] {
    return this.text.split('\n').slice(0, -1);
  }
}

/** Waits until the input is either all read, or no longer read while data waits in it. */
const untilInputSettles = (input: PassThrough) =>
  untilStill('stdin to be read to the end or left waiting', () => input.readableLength + input.writableLength, 500);

/** Bytes the process has read (proc(5) /proc/<pid>/io rchar): stdin, once it has loaded its modules. */
function bytesRead(pid: number): number {
  return Number(/^rchar: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1]);
}

/** CPU ticks the process has used (proc(5) /proc/<pid>/stat utime + stime). */
function cpuTicks(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return Number(fields[11]) + Number(fields[12]);
}

/** Waits until `value()` has not changed for `quietMs`: whatever moves it is waiting for something. */
async function untilStill(what: string, value: () => number, quietMs: number): Promise<void> {
  let last = Number.NaN;
  let sinceMs = Date.now();
  await waitFor(what, () => {
    const now = value();
    if (now !== last) {
      last = now;
      sinceMs = Date.now();
    }
    return Date.now() - sinceMs >= quietMs;
  });
}

/** Waits until the process has used no CPU for a second. */
const untilIdle = (pid: number) => untilStill('the proxy to go idle', () => cpuTicks(pid), 1_000);

describe('notegate proxy under back-pressure', () => {
  it('stops reading stdin while stdout is not read, holds no more than its buffer, and answers every line once read', async () => {
    const input = new PassThrough();
    const output = new UnreadOutput();
    const channel = new StdioChannel(input, output, () => assert.fail('no line is a message'));
    const LINES = 200_000;
    // In pieces of at most 64 KiB, as a pipe delivers them.
    const text = 'x\n'.repeat(LINES);
    for (let at = 0; at < text.length; at += 64 * 1024) input.write(text.slice(at, at + 64 * 1024));
    await untilInputSettles(input);
    assert.ok(input.readableLength + input.writableLength > 0, 'stdin is left unread');
    assert.ok(
      output.writableLength <= OUTPUT_HIGH_WATER_MARK_BYTES + 200,
      `stdout holds ${output.writableLength} bytes beyond what the reader took`,
    );
    output.open();
    input.end();
    assert.equal(await channel.ended, 'input_closed');
    assert.equal(output.lines.length, LINES, 'every line answered');
    assert.ok(output.lines.every((line) => JSON.parse(line).error.code === -32700));
  });

  it(`keeps at most ${MAX_MESSAGES_IN_FLIGHT} messages of the client in flight and reads on as they finish`, async () => {
    const input = new PassThrough();
    const output = new UnreadOutput();
    output.open();
    const sent: Array<{ message: JSONRPCMessage; resolve: () => void }> = [];
    let channel: StdioChannel | undefined;
    const relay = new Relay({
      upstream: {
        send: (message) => new Promise((resolve) => sent.push({ message, resolve: () => resolve() })),
        setProtocolVersion: () => undefined,
      },
      write: (message) => channel?.write(message),
      log: () => undefined,
      timeoutMs: 60_000,
      context: () => ({ resource: 'http://notes.test/mcp', tokenScope: 'notes:read' }),
      onRoom: () => channel?.wake(),
    });
    channel = new StdioChannel(input, output, (message) => relay.fromClient(message), {
      hasRoom: () => relay.hasRoom(),
    });
    const MESSAGES = 100;
    for (let id = 1; id <= MESSAGES; id++) {
      // Notifications count too: each is a POST of its own.
      const message =
        id % 2 === 0 ? { jsonrpc: '2.0', method: 'notifications/progress' } : { jsonrpc: '2.0', id, method: 'ping' };
      input.write(`${JSON.stringify(message)}\n`);
    }
    await waitFor('the relay to fill', () => sent.length === MAX_MESSAGES_IN_FLIGHT);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(sent.length, MAX_MESSAGES_IN_FLIGHT, 'no more while none finished');
    const idOf = (message: JSONRPCMessage) =>
      'id' in message && typeof message.id === 'number' ? message.id : undefined;
    const answered = sent.map((entry) => idOf(entry.message)).find((id) => id !== undefined);
    assert.ok(answered !== undefined);
    relay.fromUpstream({ jsonrpc: '2.0', id: answered, result: {} });
    await waitFor('one more sent', () => sent.length === MAX_MESSAGES_IN_FLIGHT + 1);
    for (let done = 0; sent.length < MESSAGES; ) {
      for (const entry of sent.slice(done)) {
        entry.resolve();
        const id = idOf(entry.message);
        if (id !== undefined) relay.fromUpstream({ jsonrpc: '2.0', id, result: {} });
      }
      done = sent.length;
      await waitFor('the next messages', () => sent.length > done || sent.length === MESSAGES);
    }
    assert.equal(sent.length, MESSAGES, 'every message went up, in the end');
    relay.abandon();
  });

  it('as a process: with stdout unread, stops taking stdin; once read, answers all of it', async (t) => {
    const proxy = spawn(
      process.execPath,
      [
        MAIN,
        'proxy',
        '--resource',
        'http://127.0.0.1:9/mcp',
        '--trusted-issuer',
        'http://127.0.0.1:9',
        '--workload-api',
        'unix:///nonexistent/agent.sock',
      ],
      { stdio: ['pipe', 'pipe', 'ignore'] },
    );
    t.after(() => proxy.kill('SIGKILL'));
    const pid = proxy.pid;
    assert.ok(pid !== undefined);
    await untilIdle(pid);
    const readBefore = bytesRead(pid);
    const LINES = 500_000;
    const input = 'x\n'.repeat(LINES);
    proxy.stdin.write(input);
    await untilIdle(pid);
    const taken = bytesRead(pid) - readBefore;
    assert.ok(taken < input.length / 4, `the proxy read ${taken} of ${input.length} bytes while its stdout was unread`);
    let answers = 0;
    proxy.stdout.on('data', (chunk: Buffer) => {
      for (let at = chunk.indexOf(0x0a); at !== -1; at = chunk.indexOf(0x0a, at + 1)) answers += 1;
    });
    await waitFor('every line answered', () => answers === LINES, 120_000);
    proxy.stdin.end();
  });
});
