import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { spawnNode, tempDir, waitFor } from '@notegate/kit/testing';
import { acquireFileLock, FileLockBusyError } from '../../src/shared/file-lock.js';

const FILE_LOCK_MODULE = fileURLToPath(new URL('../../src/shared/file-lock.js', import.meta.url));

describe('acquireFileLock', () => {
  it('hands the lock to one holder at a time, the next once it is released; the lock file is 0600', async (t) => {
    const lockPath = join(tempDir(t, 'notegate-lock-'), 'keys.json.lock');
    const first = await acquireFileLock(lockPath, 1_000);
    assert.equal(statSync(lockPath).mode & 0o777, 0o600);
    let secondHeld = false;
    const second = acquireFileLock(lockPath, 30_000).then((lock) => {
      secondHeld = true;
      return lock;
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(secondHeld, false, 'the second waits while the first holds it');
    first.release();
    (await second).release();
    assert.equal(secondHeld, true);
  });

  it('gives up after its wait with a FileLockBusyError naming the lock file', async (t) => {
    const lockPath = join(tempDir(t, 'notegate-lock-'), 'keys.json.lock');
    const held = await acquireFileLock(lockPath, 1_000);
    t.after(() => held.release());
    await assert.rejects(
      acquireFileLock(lockPath, 100),
      (err: unknown) => err instanceof FileLockBusyError && err.message.includes(lockPath),
    );
  });

  it('is free again at once when its holder is killed (no stale lock)', async (t) => {
    const lockPath = join(tempDir(t, 'notegate-lock-'), 'keys.json.lock');
    const holder = spawnNode(t, [
      '--input-type=module',
      '-e',
      `const { acquireFileLock } = await import(${JSON.stringify(FILE_LOCK_MODULE)});
       await acquireFileLock(${JSON.stringify(lockPath)}, 5000);
       process.stdout.write('held\\n');
       setInterval(() => {}, 1000);`,
    ]);
    await waitFor('the other process to hold the lock', () => holder.output.stdout.includes('held'));
    await assert.rejects(acquireFileLock(lockPath, 50), FileLockBusyError);
    holder.child.kill('SIGKILL');
    await holder.exited;
    (await acquireFileLock(lockPath, 5_000)).release();
  });
});
