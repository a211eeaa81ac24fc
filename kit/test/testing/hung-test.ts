/**
 * A test file that never finishes, for the test of `spawnInGroup`'s cleanup.
 * argv `timeout`: its test times out; `signal`: it waits to be terminated.
 * Either way its test starts this file again as `child`, which starts two
 * grandchildren as the demo starts its servers, one in its own process group
 * and one in a group of its own (detached); it prints `child <pid>` and, once
 * they run, `grandchildren <pid in its group> <pid in a group of its own>`.
 */
import { spawn } from 'node:child_process';
import { it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { spawnNode } from '../../src/testing/child-processes.js';
import { waitFor } from '../../src/testing/wait-for.js';

const [mode = ''] = process.argv.slice(2);
const idle = (detached: boolean) =>
  spawn(process.execPath, ['-e', 'setInterval(() => {}, 60_000)'], { stdio: 'ignore', detached });

if (mode === 'child') {
  const sameGroup = idle(false);
  const ownGroup = idle(true);
  process.stdout.write(`grandchildren ${sameGroup.pid} ${ownGroup.pid}\n`);
  setInterval(() => {}, 60_000);
} else if (mode === 'timeout' || mode === 'signal') {
  // The timeout is the point here: the test is meant to run out of time.
  it('starts a child and never ends', { timeout: mode === 'timeout' ? 2_000 : undefined }, async (t) => {
    const { child, output } = spawnNode(t, [fileURLToPath(import.meta.url), 'child']);
    process.stdout.write(`child ${child.pid}\n`);
    await waitFor('the grandchildren', () => output.stdout.includes('\n'));
    process.stdout.write(output.stdout);
    await new Promise(() => {});
  });
}
