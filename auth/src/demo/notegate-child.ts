import { fileURLToPath } from 'node:url';
import type { ChildProcesses, ChildStartOptions, RunningChild } from '../shared/child-processes.js';

/** The `notegate` entry point the demo starts its processes from (the same build as the demo itself). */
export const NOTEGATE_MAIN = fileURLToPath(new URL('../cli/main.js', import.meta.url));

/** `notegate <args>` as a child of the demo, as another user when `options` names one. */
export function startNotegate(
  children: ChildProcesses,
  name: string,
  args: readonly string[],
  options: ChildStartOptions = {},
): RunningChild {
  return children.start(name, process.execPath, [NOTEGATE_MAIN, ...args], options);
}
