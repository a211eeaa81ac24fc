import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { spawnNode } from '../../test-support/child.js';

const POLL_MS = 20;
/** A minute of polls: a hang detector, far above the moment a kill takes. */
const HUNG_AFTER_POLLS = 3_000;
const LINUX = { skip: process.platform !== 'linux' && 'reads /proc' };
const HUNG_TEST = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'test-support', 'hung-test.js');

/** Processes of group `pgid` that still run (a zombie has ended; only its exit status is left). */
function runningInGroup(pgid: number): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        const [state, , group] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        return Number(group) === pgid && state !== 'Z';
      } catch {
        return false;
      }
    })
    .map(Number);
}

/**
 * Resolves once group `pgid` has no running process: SIGKILL is delivered asynchronously, so a
 * killed process may run for a moment after the kill returned. Rejects when that never happens.
 */
async function groupEnds(pgid: number): Promise<void> {
  for (let polls = 0; polls < HUNG_AFTER_POLLS; polls += 1) {
    if (runningInGroup(pgid).length === 0) return;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  assert.fail(`group ${pgid} still runs ${runningInGroup(pgid).join(', ')}`);
}

/** Runs hung-test as a test file of its own, not as a part of this run (which node marks in the environment). */
function runHungTest(t: TestContext, mode: 'timeout' | 'signal') {
  const { NODE_TEST_CONTEXT: _, ...env } = process.env;
  return spawnNode(t, HUNG_TEST, [mode], { env });
}

/** The pid a hung-test run printed after `label`. */
function printed(lines: readonly string[], label: string): number | undefined {
  const line = lines.find((l) => l.startsWith(`${label} `));
  return line === undefined ? undefined : Number(line.slice(label.length + 1));
}

describe('spawnNode', () => {
  it('kills the whole process group of a child, grandchildren included, after its test', LINUX, async (t) => {
    let group = 0;
    let grandchild: number | undefined;
    await t.test('a test that leaves its child running', async (inner) => {
      const child = spawnNode(inner, HUNG_TEST, ['child']);
      grandchild = Number((await child.waitForLine(/^grandchild \d+$/)).split(' ')[1]);
      group = child.process.pid ?? 0;
      assert.deepEqual(runningInGroup(group).sort(), [group, grandchild].sort());
    });
    await groupEnds(group);
  });

  it('kills them when the test times out', LINUX, async (t) => {
    const run = runHungTest(t, 'timeout');
    assert.equal(await run.exited(), 1, run.lines.join('\n'));
    assert.ok(
      run.lines.some((line) => line.includes('test timed out')),
      run.lines.join('\n'),
    );
    const group = printed(run.lines, 'child');
    assert.ok(group, run.lines.join('\n'));
    await groupEnds(group);
  });

  it('kills them when the test process is terminated', LINUX, async (t) => {
    const run = runHungTest(t, 'signal');
    await run.waitForLine(/^grandchild \d+$/);
    const group = printed(run.lines, 'child');
    assert.ok(group);
    assert.equal(runningInGroup(group).length, 2);
    // Twice, as when a test runner forwards the SIGTERM its process group got too.
    run.process.kill('SIGTERM');
    run.process.kill('SIGTERM');
    await run.exited();
    assert.equal(run.process.signalCode, 'SIGTERM');
    await groupEnds(group);
  });
});
