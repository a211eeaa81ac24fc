import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { describe, it } from 'node:test';
import { assertOptionsDocumented, tempDir } from '@notegate/kit/testing';
import { parseSigningKeyFile } from '../../src/authz/signing/key-file.js';
import { runNotegate } from '../support/cli-process.js';

function keyFilePath(t: TestContext): string {
  return join(tempDir(t, 'notegate-keygen-'), 'signing-keys.json');
}

const keygen = (...args: string[]) => runNotegate(['authz', 'keygen', ...args]);
const kidsIn = async (path: string) =>
  (await parseSigningKeyFile(await readFile(path, 'utf8'))).keys.map((key) => key.kid);

describe('notegate authz keygen', () => {
  it('documents every option with its default under --help', async () => {
    const { code, stdout } = await keygen('--help');
    assert.equal(code, 0);
    assertOptionsDocumented(stdout, ['--out FILE', '--add', '--promote KID', '--remove KID', '--kid KID']);
  });

  it('creates a key file of mode 0600 holding one new key, and prints its kid', async (t) => {
    const path = await keyFilePath(t);
    const { code, stdout, stderr } = await keygen('--out', path);
    assert.equal(code, 0, stderr);
    const kid = stdout.trim();
    assert.match(kid, /^[A-Za-z0-9_-]{43}$/, 'the RFC 7638 thumbprint');
    assert.deepEqual(await kidsIn(path), [kid]);
    assert.equal((await stat(path)).mode & 0o777, 0o600);
  });

  it('walks a rotation: add a key second, promote it, remove the old one; the file stays 0600', async (t) => {
    const path = await keyFilePath(t);
    const old = (await keygen('--out', path, '--kid', 'old')).stdout.trim();
    assert.equal(old, 'old');
    const added = await keygen('--out', path, '--add', '--kid', 'new');
    assert.equal(added.code, 0, added.stderr);
    assert.deepEqual(await kidsIn(path), ['old', 'new']);
    assert.match(added.stderr, /old signs; keys published: old, new/);
    assert.equal((await keygen('--out', path, '--promote', 'new')).code, 0);
    assert.deepEqual(await kidsIn(path), ['new', 'old']);
    assert.equal((await keygen('--out', path, '--remove', 'old')).code, 0);
    assert.deepEqual(await kidsIn(path), ['new']);
    assert.equal((await stat(path)).mode & 0o777, 0o600);
  });

  it('refuses, with exit 2 and the file unchanged, what would break the file', async (t) => {
    const path = await keyFilePath(t);
    await keygen('--out', path, '--kid', 'a');
    await keygen('--out', path, '--add', '--kid', 'b');
    const before = await readFile(path, 'utf8');
    const cases: ReadonlyArray<readonly [string[], RegExp]> = [
      [['--out', path], /exists; add a key to it with --add/],
      [['--out', path, '--add', '--kid', 'a'], /already has a key 'a'/],
      [['--out', path, '--remove', 'a'], /'a' signs; promote another key before removing it/],
      [['--out', path, '--promote', 'zz'], /has no key 'zz' \(kids: a, b\)/],
      [['--out', path, '--add', '--kid', 'has space'], /keys\[2\]\.kid: must be 1 to 256 printable ASCII/],
      [['--out', path, '--add', '--promote', 'b'], /at most one of --add, --promote, --remove/],
      [['--out', path, '--promote', 'b', '--kid', 'c'], /--kid names a new key/],
      [['--out', `${path}.missing`, '--add'], /does not exist; create it first/],
    ];
    for (const [args, message] of cases) {
      const { code, stderr } = await keygen(...args);
      assert.equal(code, 2, args.join(' '));
      assert.match(stderr, message, args.join(' '));
    }
    assert.equal(await readFile(path, 'utf8'), before);
  });

  it('runs concurrent changes of one file one after the other: no key is lost', async (t) => {
    const path = await keyFilePath(t);
    assert.equal((await keygen('--out', path, '--kid', 'first')).code, 0);
    const runs = await Promise.all(
      ['a', 'b', 'c', 'd', 'e'].map((kid) => keygen('--out', path, '--add', '--kid', kid)),
    );
    for (const run of runs) assert.equal(run.code, 0, run.stderr);
    assert.deepEqual((await kidsIn(path)).sort(), ['a', 'b', 'c', 'd', 'e', 'first']);
    assert.equal((await stat(path)).mode & 0o777, 0o600);
  });

  it('quotes no key material of an existing file that is not JSON (a bare base64 key)', async (t) => {
    const path = await keyFilePath(t);
    const base64Der = generateKeyPairSync('ec', { namedCurve: 'P-256' })
      .privateKey.export({ format: 'der', type: 'pkcs8' })
      .toString('base64');
    await writeFile(path, base64Der);
    const { code, stderr } = await keygen('--out', path, '--add');
    assert.equal(code, 2);
    assert.match(stderr, /signing-keys\.json: not JSON/);
    // The file's own path is named, and a random temporary folder name can hold `MI` and four more characters.
    assert.doesNotMatch(stderr.replaceAll(path, '<file>'), /BEGIN|MI[A-Za-z0-9+/]{4}/);
  });

  it('names the entry of an existing file that is not a valid key file', async (t) => {
    const path = await keyFilePath(t);
    await writeFile(path, JSON.stringify({ keys: [{ kty: 'EC', crv: 'P-256' }] }));
    const { code, stderr } = await keygen('--out', path, '--add');
    assert.equal(code, 2);
    assert.match(stderr, /keys\[0\]\.x: /);
  });
});
