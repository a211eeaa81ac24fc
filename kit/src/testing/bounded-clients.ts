import { once } from 'node:events';
import { connect, type Socket } from 'node:net';

/** What a raw client received before the server closed its connection. */
export interface RawReply {
  /** The status line, for example `HTTP/1.1 408 Request Timeout` (empty when nothing came back). */
  readonly statusLine: string;
  readonly text: string;
}

/**
 * A slow-loris client: sends the head of a POST that announces a 1,000-byte body and then one byte
 * every 20 ms, never finishing. Resolves once the server has closed the connection, with what it answered.
 */
export function dripBody(base: URL, path: string): Promise<RawReply> {
  return drip(base, `POST ${path} HTTP/1.1\r\nHost: ${base.host}\r\nContent-Length: 1000\r\n\r\n`, 'a');
}

/** A slow-loris client that never finishes its headers: one more header line every 20 ms. */
export function dripHeaders(base: URL, path: string): Promise<RawReply> {
  return drip(base, `GET ${path} HTTP/1.1\r\nHost: ${base.host}\r\n`, 'X-Drip: 1\r\n');
}

async function drip(base: URL, head: string, piece: string): Promise<RawReply> {
  const socket = await rawConnection(base);
  socket.write(head);
  const timer = setInterval(() => socket.write(piece), 20);
  try {
    return await replyOf(socket);
  } finally {
    clearInterval(timer);
  }
}

/** A client that connects and never sends a byte; resolves once the server has closed the connection. */
export async function sendNothing(base: URL): Promise<RawReply> {
  return replyOf(await rawConnection(base));
}

/** Opens a connection and keeps it idle; the returned socket is the caller's to destroy. */
export async function holdConnection(base: URL): Promise<Socket> {
  return rawConnection(base);
}

/** Sends one complete GET on a fresh connection and resolves with the reply once the server closes it. */
export async function getAndClose(base: URL, path: string): Promise<RawReply> {
  const socket = await rawConnection(base);
  socket.write(`GET ${path} HTTP/1.1\r\nHost: ${base.host}\r\nConnection: close\r\n\r\n`);
  return replyOf(socket);
}

async function rawConnection(base: URL): Promise<Socket> {
  const socket = connect(Number(base.port), base.hostname.replace(/^\[(.*)\]$/, '$1'));
  socket.on('error', () => undefined);
  await once(socket, 'connect');
  return socket;
}

async function replyOf(socket: Socket): Promise<RawReply> {
  let text = '';
  socket.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
  });
  await once(socket, 'close');
  return { statusLine: text.split('\r\n')[0] ?? '', text };
}
