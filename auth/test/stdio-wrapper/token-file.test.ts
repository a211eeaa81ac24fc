import assert from 'node:assert/strict';
import {
  chmodSync,
  existsSync,
  lstatSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { TestContext } from 'node:test';
import { describe, it } from 'node:test';
import { Worker } from 'node:worker_threads';
import { UsageError } from '@notegate/kit/cli';
import { DEFAULT_TOKEN_FILE_NAME, TokenFile } from '../../src/stdio-wrapper/token-file.js';

async function tempDir(t: TestContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'token-file-test-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

const modeOf = (path: string) => statSync(path).mode & 0o777;

/**
 * A reader on another thread that polls the token file and the directory as fast as it can while the
 * main thread replaces the file, recording any read that is not one complete token and any entry of
 * the directory that others could read.
 */
const READER = `
const { workerData, parentPort } = require('node:worker_threads');
const { readFileSync, readdirSync, statSync } = require('node:fs');
const { join } = require('node:path');
const valid = new Set(workerData.valid);
const stop = new Int32Array(workerData.stop);
let reads = 0, bad = [], exposed = [];
while (Atomics.load(stop, 0) === 0) {
  const content = readFileSync(workerData.path, 'utf8');
  reads++;
  if (!valid.has(content) && bad.length < 5) bad.push(content.length);
  for (const name of readdirSync(workerData.dir)) {
    try {
      const mode = statSync(join(workerData.dir, name)).mode & 0o777;
      if ((mode & 0o077) !== 0 && exposed.length < 5) exposed.push(name + ' ' + mode.toString(8));
    } catch {}
  }
}
parentPort.postMessage({ reads, bad, exposed });
`;

describe('the token file', () => {
  it('is created in a new private directory: directory 0700, file 0600, the bare token without a newline', async (t) => {
    const file = await TokenFile.create(undefined);
    t.after(() => file.remove());
    assert.equal(file.path.endsWith(`/${DEFAULT_TOKEN_FILE_NAME}`), true);
    assert.equal(modeOf(dirname(file.path)), 0o700);
    await file.write('eyJ0eXAiOiJhdCtqd3QifQ.e30.c2ln');
    assert.equal(modeOf(file.path), 0o600);
    assert.equal(readFileSync(file.path, 'utf8'), 'eyJ0eXAiOiJhdCtqd3QifQ.e30.c2ln');
  });

  it('is 0600 whatever the umask, and leaves no temporary file behind', async (t) => {
    const dir = await tempDir(t);
    const file = await TokenFile.create(join(dir, 'token'));
    const previous = process.umask(0o000);
    try {
      await file.write('first');
      await file.write('second');
    } finally {
      process.umask(previous);
    }
    assert.equal(modeOf(file.path), 0o600);
    assert.equal(readFileSync(file.path, 'utf8'), 'second');
    assert.deepEqual(readdirSync(dir), ['token']);
  });

  it('is replaced atomically: a reader polling it never sees an empty, partial or exposed file', async (t) => {
    const dir = await tempDir(t);
    const file = await TokenFile.create(join(dir, 'token'));
    const tokens = ['a'.repeat(1_000), 'b'.repeat(20_000), 'c'.repeat(300), 'd'.repeat(60_000)];
    await file.write(tokens[0] ?? '');
    const stop = new SharedArrayBuffer(4);
    const reader = new Worker(READER, { eval: true, workerData: { path: file.path, dir, valid: tokens, stop } });
    const report = new Promise<{ reads: number; bad: number[]; exposed: string[] }>((resolve, reject) => {
      reader.once('message', resolve);
      reader.once('error', reject);
    });
    const previous = process.umask(0o000);
    try {
      for (let i = 1; i <= 400; i++) await file.write(tokens[i % tokens.length] ?? '');
    } finally {
      process.umask(previous);
      Atomics.store(new Int32Array(stop), 0, 1);
    }
    const { reads, bad, exposed } = await report;
    assert.deepEqual(bad, [], 'lengths of reads that were not one whole token');
    assert.deepEqual(exposed, [], 'directory entries readable by others');
    assert.ok(reads > 100, `only ${reads} reads`);
  });

  it('refuses a path whose directory does not exist, or that is a directory, naming the flag', async (t) => {
    const dir = await tempDir(t);
    await assert.rejects(
      TokenFile.create(join(dir, 'missing', 'token')),
      (err) => err instanceof UsageError && /^--token-file: directory .*missing does not exist$/.test(err.message),
    );
    await assert.rejects(
      TokenFile.create(dir),
      (err) => err instanceof UsageError && /is a directory/.test(err.message),
    );
  });

  it('removes the file and its private directory, and may be removed twice', async () => {
    const file = await TokenFile.create(undefined);
    await file.write('token');
    writeFileSync(join(dirname(file.path), 'left-over'), 'x');
    await file.remove();
    assert.equal(existsSync(dirname(file.path)), false);
    await file.remove();
    file.removeSync();
  });

  it('waits for a write in flight when removed, so the file does not come back, and refuses later writes', async (t) => {
    const dir = await tempDir(t);
    const file = await TokenFile.create(join(dir, 'token'));
    const inFlight = file.write('late token').catch(() => 'refused');
    await file.remove();
    await inFlight;
    assert.deepEqual(readdirSync(dir), []);
    await assert.rejects(file.write('later'), /was removed/);
    assert.deepEqual(readdirSync(dir), []);
  });

  it('never writes through a symbolic link or into a file readable by others found at --token-file', async (t) => {
    const dir = await tempDir(t);
    const target = join(dir, 'elsewhere');
    writeFileSync(target, 'untouched');
    const link = join(dir, 'linked-token');
    symlinkSync(target, link);
    const linked = await TokenFile.create(link);
    await linked.write('token-one');
    assert.equal(lstatSync(link).isFile(), true, 'the link itself was replaced');
    assert.equal(modeOf(link), 0o600);
    assert.equal(readFileSync(target, 'utf8'), 'untouched');

    const loose = join(dir, 'loose-token');
    writeFileSync(loose, 'old');
    chmodSync(loose, 0o666);
    const file = await TokenFile.create(loose);
    await file.write('token-two');
    assert.equal(modeOf(loose), 0o600, 'a new 0600 file took its place');
    assert.equal(readFileSync(loose, 'utf8'), 'token-two');
  });

  it('removes only the file when the path was given', async (t) => {
    const dir = await tempDir(t);
    const file = await TokenFile.create(join(dir, 'token'));
    await file.write('token');
    file.removeSync();
    assert.deepEqual(readdirSync(dir), []);
    assert.equal(existsSync(dir), true);
  });
});
