import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { spawnNode } from '../../src/testing/child-processes.js';
import { runningInGroup } from '../../src/testing/process-groups.js';
import { waitFor } from '../../src/testing/wait-for.js';

const LINUX = { skip: process.platform !== 'linux' && 'reads /proc' };
const HUNG_TEST = fileURLToPath(new URL('./hung-test.js', import.meta.url));

/** Runs hung-test as a test file of its own, not as a part of this run (which node marks in the environment). */
function runHungTest(t: TestContext, mode: 'timeout' | 'signal') {
  const { NODE_TEST_CONTEXT: _, ...env } = process.env;
  return spawnNode(t, [HUNG_TEST, mode], env);
}

/** The pids a hung-test run printed after `label`. */
function printed(stdout: string, label: string): number[] {
  const line = stdout.split('\n').find((l) => l.startsWith(`${label} `)) ?? '';
  return line.split(' ').slice(1).map(Number);
}

/** The groups of a child and its grandchildren, once all run. */
async function groupsOf(output: { stdout: string }, child: number): Promise<number[]> {
  const [, ownGroup] = await waitFor('the grandchildren', () => {
    const pids = printed(output.stdout, 'grandchildren');
    return pids.length === 2 && pids;
  });
  assert.ok(ownGroup);
  return [child, ownGroup];
}

/** SIGKILL is delivered asynchronously: a killed process may run for a moment after the kill returned. */
function groupsEnd(groups: readonly number[]): Promise<true> {
  return waitFor(`groups ${groups.join(', ')} to end`, () => groups.every((g) => runningInGroup(g).length === 0));
}

describe('spawnNode (processes started by tests)', () => {
  it('kills its process group and the groups its descendants made after the test', LINUX, async (t) => {
    let groups: number[] = [];
    await t.test('a test that leaves its child running', async (inner) => {
      const { child, output } = spawnNode(inner, [HUNG_TEST, 'child']);
      groups = await groupsOf(output, child.pid ?? 0);
      assert.deepEqual(
        groups.map((g) => runningInGroup(g).length),
        [2, 1],
      );
    });
    await groupsEnd(groups);
  });

  it('kills them when the test times out', LINUX, async (t) => {
    const run = runHungTest(t, 'timeout');
    assert.equal(await run.exited, 1, run.output.stdout);
    assert.match(run.output.stdout, /test timed out/);
    const [child] = printed(run.output.stdout, 'child');
    const [, ownGroup] = printed(run.output.stdout, 'grandchildren');
    assert.ok(child, run.output.stdout);
    await groupsEnd(ownGroup === undefined ? [child] : [child, ownGroup]);
  });

  it('kills them when the test process is terminated', LINUX, async (t) => {
    const run = runHungTest(t, 'signal');
    const child = await waitFor('the child', () => printed(run.output.stdout, 'child')[0]);
    const groups = await groupsOf(run.output, child);
    // Twice, as when a test runner forwards the SIGTERM its process group got too.
    run.child.kill('SIGTERM');
    run.child.kill('SIGTERM');
    await run.exited;
    assert.equal(run.child.signalCode, 'SIGTERM');
    await groupsEnd(groups);
  });
});
