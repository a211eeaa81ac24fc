import { type ChildProcess, type SpawnOptions, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/**
 * Every process a test starts leads a process group of its own (`detached`), so
 * killing the group also kills whatever it started in it. The test's cleanup
 * kills the group, and the groups of any processes below it that made groups
 * of their own (the demo's servers), whether the test passed, failed or timed
 * out. A detached group no longer gets the terminal's Ctrl-C, so a test process
 * that is interrupted, terminated or exits kills every group still running.
 */
/** Something that runs cleanups later: a TestContext, or a suite-level list of cleanups. */
export interface Registrar {
  after(fn: () => unknown): void;
}

const running = new Map<number, ChildProcess>();
let exitHookInstalled = false;

/** Starts `command` in a group of its own, killed (with everything below it) in `t`'s cleanup. */
export function spawnInGroup(
  t: Registrar | undefined,
  command: string,
  args: readonly string[],
  options: Omit<SpawnOptions, 'detached'>,
): ChildProcess {
  installExitHook();
  const child = spawn(command, args, { ...options, detached: true });
  const pid = child.pid;
  if (pid === undefined) return child;
  running.set(pid, child);
  // After 'exit' only stray members of its group can be left: the kill in the cleanup gets those.
  child.once('exit', () => running.delete(pid));
  t?.after(() => killGroups(child));
  return child;
}

/** SIGKILLs the child's group and the groups of its descendants, then waits until the child has exited. */
export async function killGroups(child: ChildProcess): Promise<void> {
  const pid = child.pid;
  if (pid === undefined) return;
  const exited =
    child.exitCode !== null || child.signalCode !== null
      ? Promise.resolve()
      : new Promise<void>((resolve) => child.once('exit', () => resolve()));
  killGroupsNow(pid);
  await exited;
}

/** Processes of group `pgid` still running (a zombie has ended: only its exit status is left); Linux only. */
export function runningInGroup(pgid: number): number[] {
  return [...procStats()].filter(([, stat]) => stat.pgid === pgid && stat.state !== 'Z').map(([pid]) => pid);
}

/** Every process below `pid` (walking /proc on Linux, or the scan given; none elsewhere). */
export function descendants(pid: number, stats: ReadonlyMap<number, ProcStat> = procStats()): number[] {
  const parents = new Map<number, number>();
  for (const [child, stat] of stats) parents.set(child, stat.ppid);
  const found: number[] = [];
  const queue = [pid];
  for (let parent = queue.shift(); parent !== undefined; parent = queue.shift()) {
    for (const [child, ppid] of parents) {
      if (ppid === parent) {
        found.push(child);
        queue.push(child);
      }
    }
  }
  return found;
}

function killGroupsNow(pid: number): void {
  const groups = procStats();
  const below = descendants(pid, groups).map((descendant) => groups.get(descendant)?.pgid ?? pid);
  for (const pgid of new Set([pid, ...below])) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}

interface ProcStat {
  readonly state: string;
  readonly ppid: number;
  readonly pgid: number;
}

/** /proc/<pid>/stat: "pid (comm) state ppid pgrp …"; comm may hold spaces, so fields are read after the last ')'. */
function procStats(): Map<number, ProcStat> {
  const stats = new Map<number, ProcStat>();
  if (process.platform !== 'linux') return stats;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [state = '', ppid, pgid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      stats.set(Number(entry), { state, ppid: Number(ppid), pgid: Number(pgid) });
    } catch {
      // Gone meanwhile.
    }
  }
  return stats;
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  const killAll = () => {
    for (const pid of running.keys()) killGroupsNow(pid);
  };
  process.on('exit', killAll);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    // Listening until the groups are dead: a second signal while they are killed (a test runner
    // forwards the SIGTERM its group got too) would otherwise end this process half-way.
    const onSignal = () => {
      killAll();
      process.off(signal, onSignal);
      // Then die of the signal as the default action would have.
      process.kill(process.pid, signal);
    };
    process.on(signal, onSignal);
  }
}
