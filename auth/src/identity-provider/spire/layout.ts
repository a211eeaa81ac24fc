import { realpath, stat } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * How the workloads of a local SPIRE deployment are told apart on one machine
 * (docs/demo.md#spire-on-this-machine):
 * - `uid`: one agent; each workload runs as a uid of its own and its registration entry selects
 *   `unix:uid:<uid>`, as SPIRE is run for real. Only root can start processes as other users.
 * - `agent-per-workload`: one agent per workload, each with its own join token, socket and entries
 *   parented to that agent's ID; every workload runs as the current user, and which socket it
 *   connects to decides its identity. Works for any user.
 */
export const SPIRE_LAYOUTS = ['auto', 'uid', 'agent-per-workload'] as const;
export type SpireLayoutChoice = (typeof SPIRE_LAYOUTS)[number];
export type SpireLayout = Exclude<SpireLayoutChoice, 'auto'>;

export interface LayoutFacts {
  /** This process's uid (undefined where there are no uids). */
  readonly uid: number | undefined;
  /** Why a process of another uid could not run the workloads here, or undefined when it could. */
  readonly unreachable: string | undefined;
}

export type LayoutDecision =
  | { readonly layout: SpireLayout; readonly why: string }
  | { readonly layout: undefined; readonly problem: string };

/** `auto` is `uid` where it can work (root, and the programs reachable by other users), else one agent per workload. */
export function chooseSpireLayout(requested: SpireLayoutChoice, facts: LayoutFacts): LayoutDecision {
  const uidProblem =
    facts.uid !== 0
      ? `starting workloads as other users needs root (this process runs as uid ${facts.uid ?? 'none'})`
      : facts.unreachable;
  if (requested === 'agent-per-workload') return { layout: requested, why: 'asked for' };
  if (requested === 'uid') {
    return uidProblem === undefined
      ? { layout: 'uid', why: 'asked for' }
      : { layout: undefined, problem: `the uid layout cannot work here: ${uidProblem}` };
  }
  return uidProblem === undefined
    ? { layout: 'uid', why: 'running as root' }
    : { layout: 'agent-per-workload', why: uidProblem };
}

/** What a workload of another uid must be able to do with a path. */
export interface ReachTarget {
  readonly path: string;
  /** `search` a folder, `read` a file, `execute` a program. */
  readonly need: 'search' | 'read' | 'execute';
}

/** The "others" permission bit each need takes: another uid is neither the owner nor in the group. */
const OTHERS_BIT: Readonly<Record<ReachTarget['need'], number>> = { search: 0o001, read: 0o004, execute: 0o001 };

/**
 * Why a process of an unrelated uid could not reach every target (the first folder on the way or
 * the target itself that does not let others in), or undefined. Pure: `modeOf` gives a path's mode.
 */
export function reachProblem(
  targets: readonly ReachTarget[],
  modeOf: (path: string) => number | undefined,
): string | undefined {
  for (const target of targets) {
    for (const folder of foldersAbove(target.path)) {
      const mode = modeOf(folder);
      if (mode === undefined || (mode & OTHERS_BIT.search) === 0) {
        return `other users cannot enter ${folder}${modeText(mode)}, on the way to ${target.path}`;
      }
    }
    const mode = modeOf(target.path);
    if (mode === undefined || (mode & OTHERS_BIT[target.need]) === 0) {
      return `other users cannot ${target.need} ${target.path}${modeText(mode)}`;
    }
  }
  return undefined;
}

/** reachProblem over the real file system, symbolic links resolved first (their targets are what counts). */
export async function othersCannotReach(targets: readonly ReachTarget[]): Promise<string | undefined> {
  const resolved: ReachTarget[] = [];
  const modes = new Map<string, number>();
  for (const target of targets) {
    let path: string;
    try {
      path = await realpath(target.path);
    } catch {
      return `${target.path} does not exist`;
    }
    resolved.push({ ...target, path });
    for (const each of [...foldersAbove(path), path]) {
      if (!modes.has(each)) modes.set(each, (await stat(each)).mode);
    }
  }
  return reachProblem(resolved, (path) => modes.get(path));
}

/** `/a/b/c` → `/`, `/a`, `/a/b`. */
function foldersAbove(path: string): string[] {
  const folders: string[] = [];
  for (let folder = dirname(path); ; folder = dirname(folder)) {
    folders.unshift(folder);
    if (dirname(folder) === folder) return folders;
  }
}

function modeText(mode: number | undefined): string {
  return mode === undefined ? '' : ` (mode ${(mode & 0o777).toString(8).padStart(4, '0')})`;
}

/**
 * chooseSpireLayout for this process: `targets` are what the workloads need (node, the program they
 * run, `spire-agent` for the readiness probe, the deployment's folder).
 */
export async function decideSpireLayout(
  requested: SpireLayoutChoice,
  targets: readonly ReachTarget[],
): Promise<LayoutDecision> {
  const uid = process.getuid?.();
  // Only root can use the uid layout: no need to look at the file system otherwise.
  const unreachable = uid === 0 && requested !== 'agent-per-workload' ? await othersCannotReach(targets) : undefined;
  return chooseSpireLayout(requested, { uid, unreachable });
}
