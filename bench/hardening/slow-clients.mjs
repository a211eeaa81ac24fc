#!/usr/bin/env node
// How long a client that never finishes its request keeps a connection, on every server, this checkout
// against another built one (--before DIR): one client per server and kind drips a byte every 100 ms
// (of its headers, or of a body it announced), all at once; each row is the time until the server
// closed the connection, and what it answered. Waits at most BENCH_CAP_S (default 100 s).
//   node bench/hardening/slow-clients.mjs [--before DIR]
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeFixtures } from '../authz/fixtures.mjs';
import { checkouts, notegateCli, printTable, ragCli, startNotesServer, startServer } from './support.mjs';

const CAP_S = Number(process.env.BENCH_CAP_S ?? 100);
const DRIP_EVERY_MS = 100;
const versions = checkouts();

/** Connects, sends `head`, then `piece` every 100 ms; resolves with seconds until closed and the status line. */
async function slowClient(url, head, piece) {
  const socket = connect(Number(url.port), url.hostname);
  socket.on('error', () => undefined);
  await once(socket, 'connect');
  const started = performance.now();
  let text = '';
  socket.on('data', (chunk) => {
    text += chunk;
  });
  socket.write(head);
  const timer = setInterval(() => socket.write(piece), DRIP_EVERY_MS);
  const cap = setTimeout(() => socket.destroy(), CAP_S * 1000);
  await once(socket, 'close');
  clearInterval(timer);
  clearTimeout(cap);
  const seconds = (performance.now() - started) / 1000;
  const cut = seconds < CAP_S - 0.5;
  return { time: cut ? `${seconds.toFixed(1)} s` : `not cut in ${CAP_S} s`, answer: text.split('\r\n')[0] || '(none)' };
}

const dripHeaders = (url, path) => slowClient(url, `GET ${path} HTTP/1.1\r\nHost: ${url.host}\r\n`, 'X-Drip: 1\r\n');
const dripBody = (url, path, headers = {}) =>
  slowClient(
    url,
    `POST ${path} HTTP/1.1\r\nHost: ${url.host}\r\n${Object.entries({ ...headers, 'content-length': '1000' })
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('')}\r\n`,
    'a',
  );

const dir = mkdtempSync(join(tmpdir(), 'bench-slow-'));
const stops = [];
try {
  await writeFixtures(dir);
  mkdirSync(join(dir, 'repo', '.git'), { recursive: true });
  mkdirSync(join(dir, 'repo', 'vault'), { recursive: true });
  mkdirSync(join(dir, 'repo', 'rag'), { recursive: true });
  const ragConfig = join(dir, 'repo', 'rag', 'vaults.json');
  writeFileSync(
    ragConfig,
    JSON.stringify({ embed_model: 'intfloat/multilingual-e5-small', vaults: [{ id: 'v', path: 'vault' }] }),
  );
  const probes = [];
  for (const { label, root } of versions) {
    const authz = await startServer([
      notegateCli(root),
      'authz',
      '--issuer',
      'http://127.0.0.1:0',
      '--port',
      '0',
      '--policy',
      join(dir, 'policy.yaml'),
      '--jwt-bundle',
      join(dir, 'bundle.json'),
      '--audit-log',
      join(dir, `authz-${label}.log`),
    ]);
    stops.push(authz.stop);
    const notes = await startNotesServer(root, dir, label);
    stops.push(notes.stop);
    const rag = await startServer([ragCli(root), 'serve', '--config', ragConfig, '--port', '0'], {
      PATH: process.env.PATH,
      HOME: dir,
    });
    stops.push(rag.stop);
    const authzUrl = new URL(authz.url);
    const notesUrl = new URL(notes.endpoint);
    const ragUrl = new URL(rag.url);
    const token = await notes.issuer.sign();
    const mcp = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token}`,
    };
    const row = (server, kind, probe) => probes.push(probe.then((r) => [label, server, kind, r.time, r.answer]));
    row('authz', 'headers', dripHeaders(authzUrl, '/jwks.json'));
    row(
      'authz',
      'body of POST /token',
      dripBody(authzUrl, '/token', { 'content-type': 'application/x-www-form-urlencoded' }),
    );
    row('notes server', 'headers', dripHeaders(notesUrl, '/mcp'));
    row('notes server', 'body of an authenticated POST', dripBody(notesUrl, '/mcp', mcp));
    row('rag serve', 'headers', dripHeaders(ragUrl, '/health'));
    row('rag serve', 'body of POST /search', dripBody(ragUrl, '/search'));
  }
  const rows = await Promise.all(probes);
  printTable(
    `Slow clients: one byte every ${DRIP_EVERY_MS} ms, never finishing (time until the server closed the connection)`,
    ['server', 'program', 'what drips', 'cut after', 'answer'],
    rows,
  );
} finally {
  for (const stop of stops.reverse()) await stop();
  rmSync(dir, { recursive: true, force: true });
}
