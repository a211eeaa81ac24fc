import type { TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type Finished, runInGroup, spawnNode, waitFor } from '@notegate/kit/testing';

export const MAIN = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));

/** The program a command run in this process reports for `--version`. */
export const TEST_PROGRAM = { name: 'notegate', version: '0.0.0-test' } as const;

/** Runs `notegate <args>` to completion (its process group is killed if the test process ends first). */
export function runNotegate(args: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<Finished> {
  return runInGroup(undefined, process.execPath, [MAIN, ...args], env);
}

/** Starts a long-running `notegate <args>`, killed after the test, and waits for its first stdout line. */
export async function startNotegate(t: TestContext, args: readonly string[], env: NodeJS.ProcessEnv = process.env) {
  const { child, output } = spawnNode(t, [MAIN, ...args], env);
  await waitFor('the listening line', () => output.stdout.includes('\n'));
  return { child, output };
}
