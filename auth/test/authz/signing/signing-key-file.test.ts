import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { chmod, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { TestContext } from 'node:test';
import { describe, it } from 'node:test';
import { writeFileAtomic } from '@notegate/kit';
import { UsageError } from '@notegate/kit/cli';
import { tempDir, waitFor } from '@notegate/kit/testing';
import { privateKeyEntry } from '../../../src/authz/signing/key-file.js';
import { openSigningKeyFile, type SigningKeyFile } from '../../../src/authz/signing/signing-key-file.js';
import { openError } from '../../support/open-error.js';

const keysFile = (...kids: string[]) =>
  JSON.stringify({
    keys: kids.map((kid) => privateKeyEntry(generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey, kid)),
  });

async function keyFile(t: TestContext, text: string) {
  const path = join(tempDir(t, 'notegate-signing-keys-'), 'keys.json');
  await writeFile(path, text, { mode: 0o600 });
  return { path, replace: (next: string) => writeFileAtomic(dirname(path), basename(path), next) };
}

async function open(t: TestContext, path: string) {
  const events: string[] = [];
  const reloads: string[] = [];
  const source = await openSigningKeyFile({
    path,
    pollIntervalMs: 50,
    onEvent: (message) => events.push(message),
    onReload: (result) => reloads.push(result),
  });
  t.after(() => source.close());
  return { source, events, reloads };
}

const kids = (source: SigningKeyFile) => source.current().keys.map((key) => key.kid);

describe('SigningKeyFile', () => {
  it('takes a changed file, and keeps the last good keys when the file turns bad or goes away', async (t) => {
    const file = await keyFile(t, keysFile('one'));
    const { source, events, reloads } = await open(t, file.path);
    assert.deepEqual(kids(source), ['one']);

    await file.replace(keysFile('one', 'two'));
    await waitFor('the second key', () => kids(source).length === 2);
    assert.deepEqual(kids(source), ['one', 'two']);
    assert.deepEqual(reloads, ['ok']);

    await file.replace('{"keys": [{"kty": "EC"}]}');
    await waitFor('the refusal', () => reloads.length === 2);
    assert.deepEqual(reloads, ['ok', 'invalid']);
    assert.deepEqual(kids(source), ['one', 'two'], 'the last good keys stay');
    assert.match(events.at(-1) ?? '', /keys\.json: keys\[0\]\.crv: .*keeping the last good keys \(signing with one/);

    await rm(file.path);
    await waitFor('the missing file to be noticed', () => reloads.length === 3);
    assert.match(events.at(-1) ?? '', /cannot read: .*ENOENT.*keeping the last good keys/);
    assert.deepEqual(kids(source), ['one', 'two']);
  });

  it('refuses a key file that others may read or write, at open and at every reload, keeping the last good keys', async (t) => {
    const file = await keyFile(t, keysFile('one'));
    for (const mode of [0o644, 0o640, 0o604, 0o660, 0o666]) {
      await chmod(file.path, mode);
      const refused = await openError(() => openSigningKeyFile({ path: file.path, onEvent: () => {} }));
      assert.ok(refused instanceof UsageError, `mode ${mode.toString(8)}: ${String(refused)}`);
      assert.match(
        refused.message,
        new RegExp(
          `^--signing-keys \\S+keys\\.json: the file is (readable|writable) by group or others \\(mode 0${mode.toString(8)}\\)`,
        ),
      );
    }
    await chmod(file.path, 0o600);
    const { source, events, reloads } = await open(t, file.path);

    await file.replace(keysFile('one', 'two'));
    await waitFor('the second key', () => kids(source).length === 2);
    await chmod(file.path, 0o644);
    await waitFor('the refusal', () => reloads.length === 2);
    assert.deepEqual(reloads, ['ok', 'invalid']);
    assert.match(
      events.at(-1) ?? '',
      /keys\.json: the file is readable by group or others \(mode 0644\); make it owner-only \(chmod 600\); keeping the last good keys \(signing with one, publishing one, two\)$/,
    );
    // A new version that others could write from its first instant: its keys never come into force.
    const staged = `${file.path}.new`;
    await writeFile(staged, keysFile('three'));
    await chmod(staged, 0o666);
    await rename(staged, file.path);
    await waitFor('the second refusal', () => reloads.length === 3);
    assert.match(events.at(-1) ?? '', /the file is writable by group or others \(mode 0666\)/);
    assert.deepEqual(kids(source), ['one', 'two']);
  });

  it('refuses to open a file that is bad from the start, naming the entry', async (t) => {
    const file = await keyFile(t, JSON.stringify({ keys: [] }));
    await assert.rejects(
      openSigningKeyFile({ path: file.path, onEvent: () => {} }),
      /keys: must hold at least one key/,
    );
    await assert.rejects(openSigningKeyFile({ path: `${file.path}.none`, onEvent: () => {} }), /cannot read: .*ENOENT/);
  });
});
