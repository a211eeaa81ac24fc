/**
 * A test file that never finishes, for the test of `spawnNode`'s cleanup.
 * argv `timeout`: its test times out; `signal`: it waits to be terminated.
 * Either way its test starts this file again as `child`, which starts a
 * grandchild in its process group; it prints `child <pid>` and, once the
 * grandchild runs, `grandchild <pid>`.
 */
import { spawn } from 'node:child_process';
import { it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { spawnNode } from './child.js';

const [mode = ''] = process.argv.slice(2);

if (mode === 'child') {
  const grandchild = spawn(process.execPath, ['-e', 'setInterval(() => {}, 60_000)'], { stdio: 'ignore' });
  process.stdout.write(`grandchild ${grandchild.pid}\n`);
  setInterval(() => {}, 60_000);
} else if (mode === 'timeout' || mode === 'signal') {
  // The timeout is the point here: the test is meant to run out of time.
  it('starts a child and never ends', { timeout: mode === 'timeout' ? 2_000 : undefined }, async (t) => {
    const child = spawnNode(t, fileURLToPath(import.meta.url), ['child']);
    process.stdout.write(`child ${child.process.pid}\n`);
    const line = await child.waitForLine(/^grandchild \d+$/);
    process.stdout.write(`${line}\n`);
    await new Promise(() => {});
  });
}
