#!/usr/bin/env node
// Another client's searches while a server indexes a large note, this checkout against another built one
// (--before DIR): `notegate-rag serve --watch` and `notegate notes-server --notes-dir`, both over
// lexical-only indexes (no model: the index run is reading, hashing, chunking and writing). A probe in a
// worker thread searches every 20 ms (a word the large note does not hold) from the moment the note is
// dropped into the vault until a search finds the note's own marker word; the table gives the probe's
// latencies over that time. For the notes server, also while one client writes a 256 KiB note.
//   node bench/hardening/large-note-stall.mjs [--before DIR]     (env BENCH_NOTE_MB=7)
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { checkouts, ms, printTable, quantile, ragCli, sleep, startNotesServer, startServer } from './support.mjs';

const NOTE_BYTES = Number(process.env.BENCH_NOTE_MB ?? 7) * 1024 * 1024;
const PROBE_EVERY_MS = 20;
const PROBE_WORD = 'quartz';
const MARKER = 'zzlargenotemarkerzz';
const WRITE_BYTES = 256 * 1024;
const versions = checkouts();
const dir = mkdtempSync(join(tmpdir(), 'bench-large-note-'));

/** Markdown of about `bytes`: headed sections of prose, words from a small vocabulary, a marker at the end. */
function largeNote(bytes, title) {
  const words =
    'signing key rotation policy vault search index token audience resource server client notes model embedding chunk heading markdown event loop latency'.split(
      ' ',
    );
  let seed = 7;
  const next = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed / 2_147_483_648;
  };
  const parts = [`# ${title}\n\n`];
  let size = parts[0].length;
  for (let n = 0; size < bytes; n++) {
    const heading = n % 20 === 0 ? `## Section ${n}\n\n` : '';
    const length = 40 + Math.floor(next() * 80);
    const sentence = Array.from({ length }, () => words[Math.floor(next() * words.length)]).join(' ');
    const part = `${heading}${sentence}.\n\n`;
    parts.push(part);
    size += part.length;
  }
  parts.push(`${MARKER}\n`);
  return parts.join('');
}

function smallNotes(folder) {
  mkdirSync(folder, { recursive: true });
  for (let i = 0; i < 40; i++) {
    writeFileSync(join(folder, `small-${i}.md`), `# Small ${i}\n\nA ${PROBE_WORD} note number ${i} about stones.\n`);
  }
}

/** Writes the note under a hidden name, then renames it into the vault: one change for the watcher. */
function drop(folder, name, text) {
  const staged = join(folder, `.${name}.staged`);
  writeFileSync(staged, text);
  renameSync(staged, join(folder, name));
}

/** Searches `request` every PROBE_EVERY_MS from a worker thread until told to stop; resolves with the latencies. */
function probe(request) {
  const source = `
    const { workerData, parentPort } = require('node:worker_threads');
    let running = true;
    parentPort.on('message', () => { running = false; });
    (async () => {
      const samples = [];
      while (running) {
        const started = performance.now();
        const response = await fetch(workerData.url, workerData.init);
        if (response.status !== 200) throw new Error('probe got ' + response.status);
        await response.arrayBuffer();
        samples.push(performance.now() - started);
        await new Promise((r) => setTimeout(r, ${PROBE_EVERY_MS}));
      }
      parentPort.postMessage(samples);
    })();`;
  const worker = new Worker(source, { eval: true, workerData: request });
  const samples = new Promise((resolve, reject) => {
    worker.once('message', (values) => {
      resolve(values);
      void worker.terminate();
    });
    worker.once('error', reject);
  });
  return { stop: () => worker.postMessage('stop'), samples };
}

/** Probes while `during` runs, then until `settled` says yes; the probe's latencies and how long it took. */
async function measure(request, during, settled) {
  const probing = probe(request);
  await sleep(500);
  const started = Date.now();
  await during();
  while (!(await settled())) await sleep(100);
  const seconds = (Date.now() - started) / 1000;
  probing.stop();
  return { samples: await probing.samples, seconds };
}

function row(label, what, { samples, seconds }) {
  return [
    label,
    what,
    `${seconds.toFixed(1)} s`,
    String(samples.length),
    ms(quantile(samples, 0.5)),
    ms(quantile(samples, 0.99)),
    ms(Math.max(...samples)),
    loadavg()[0].toFixed(1),
  ];
}

// The machine's load average over the last minute when the row was measured: the probe's latency includes
// waiting for a core, which no change of the server's removes.
const HEADERS = ['server', 'while', 'until searchable', 'probes', 'p50', 'p99', 'max', 'load'];

async function serveRows(label, root, note) {
  const repo = join(dir, `serve-${label}`);
  mkdirSync(join(repo, '.git'), { recursive: true });
  smallNotes(join(repo, 'vault'));
  const config = join(repo, 'rag', 'vaults.json');
  mkdirSync(join(repo, 'rag'));
  writeFileSync(config, JSON.stringify({ embed_model: 'none', vaults: [{ id: 'v', path: 'vault' }] }));
  const env = { PATH: process.env.PATH, HOME: join(dir, 'home') };
  const server = await startServer([ragCli(root), 'serve', '--watch', '--config', config, '--port', '0'], env);
  try {
    const search = (query) => ({
      url: String(new URL('/search', server.url)),
      init: { method: 'POST', body: JSON.stringify({ query, mode: 'lexical' }) },
    });
    const found = async (query) => {
      const { url, init } = search(query);
      const response = await fetch(url, init);
      return response.status === 200 && (await response.json()).hits.length > 0;
    };
    while (!(await found(PROBE_WORD))) await sleep(200);
    const result = await measure(
      search(PROBE_WORD),
      async () => drop(join(repo, 'vault'), 'large.md', note),
      () => found(MARKER),
    );
    return [row(label, `index run of a ${(NOTE_BYTES / 1024 ** 2).toFixed(0)} MiB note`, result)];
  } finally {
    await server.stop();
  }
}

async function notesServerRows(label, root, note) {
  const server = await startNotesServer(root, dir, label);
  const notesDir = join(dir, `notes-${label}`);
  try {
    const token = await server.issuer.sign();
    const call = (name, args) => ({
      url: server.endpoint,
      init: {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${token}`,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
      },
    });
    const found = async (query) => {
      const { url, init } = call('notes.search', { query });
      const response = await fetch(url, init);
      const body = await response.json();
      return (body.result?.structuredContent?.hits?.length ?? 0) > 0;
    };
    smallNotes(notesDir);
    while (!(await found(PROBE_WORD))) await sleep(200);
    const written = await measure(
      call('notes.search', { query: PROBE_WORD }),
      async () => {
        const { url, init } = call('notes.write', {
          title: 'Written note',
          body: largeNote(WRITE_BYTES - 1024, 'Written note').replace(MARKER, 'zzwrittenmarkerzz'),
        });
        const response = await fetch(url, init);
        if (response.status !== 200) throw new Error(`notes.write answered ${response.status}`);
        await response.arrayBuffer();
      },
      () => found('zzwrittenmarkerzz'),
    );
    const dropped = await measure(
      call('notes.search', { query: PROBE_WORD }),
      async () => drop(notesDir, 'large.md', note),
      () => found(MARKER),
    );
    return [
      row(label, 'one notes.write of 256 KiB', written),
      row(label, `index run of a ${(NOTE_BYTES / 1024 ** 2).toFixed(0)} MiB note`, dropped),
    ];
  } finally {
    await server.stop();
  }
}

try {
  const note = largeNote(NOTE_BYTES, 'Large note');
  const serve = [];
  const notes = [];
  for (const { label, root } of versions) {
    serve.push(...(await serveRows(label, root, note)));
    notes.push(...(await notesServerRows(label, root, note)));
  }
  printTable(`notegate-rag serve --watch: another client's POST /search (every ${PROBE_EVERY_MS} ms)`, HEADERS, serve);
  printTable(
    `notegate notes-server --notes-dir: another client's notes.search (every ${PROBE_EVERY_MS} ms)`,
    HEADERS,
    notes,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
