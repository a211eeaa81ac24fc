import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { tempDir } from '@notegate/kit/testing';
import { parseSigningKeyFile } from '../../../src/authz/signing/key-file.js';
import { changeKeyFile } from '../../../src/authz/signing/key-file-maintenance.js';

describe('changeKeyFile', () => {
  it('keeps every change when several run at once: each reads the file the one before wrote', async (t) => {
    const path = join(tempDir(t, 'notegate-keyfile-'), 'signing-keys.json');
    await changeKeyFile(path, { kind: 'create', kid: 'first' });
    const kids = ['a', 'b', 'c', 'd', 'e', 'f'];
    await Promise.all(kids.map((kid) => changeKeyFile(path, { kind: 'add', kid })));
    await Promise.all([
      changeKeyFile(path, { kind: 'promote', kid: 'c' }),
      changeKeyFile(path, { kind: 'remove', kid: 'e' }),
    ]);
    const set = await parseSigningKeyFile(await readFile(path, 'utf8'));
    assert.equal(set.signing.kid, 'c');
    assert.deepEqual(set.keys.map((key) => key.kid).sort(), ['a', 'b', 'c', 'd', 'f', 'first']);
  });
});
