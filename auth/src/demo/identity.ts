import type { ReplayMode } from '../authz/check-replay.js';
import type { ChildStartOptions, RunningChild } from '../shared/child-processes.js';
import type { WorkloadName } from './demo-config.js';

/** The identity sources `notegate demo --identity` offers (docs/demo.md). */
export const DEMO_IDENTITIES = ['development', 'spire'] as const;
export type DemoIdentityName = (typeof DEMO_IDENTITIES)[number];

/** How many JWT-SVIDs the identity source has handed out so far, for scenario 4. */
export interface SvidCounter {
  readonly count: number;
  /** Who counts what, for the report: `identity provider, JWT-SVIDs minted`. */
  readonly label: string;
}

/**
 * Where the demo's workloads get their identities: the development identity provider, or SPIRE.
 * The rest of the deployment runs the same either way.
 */
export interface DemoIdentity {
  /** The deployment block's rows for it: name, where, what. */
  readonly rows: readonly (readonly [string, string, string])[];
  /** authz's `--svid-replay` for this source (docs/demo.md#what-spire-hands-out). */
  readonly replayMode: ReplayMode;
  readonly svids: SvidCounter;
  /** The folder for the files workloads open themselves (audit logs, authz's policy). */
  readonly workloadDir: string;
  /** Its processes, for the crash report. */
  readonly daemons: readonly RunningChild[];
  /** `unix:///…`: the Workload API as `name`. */
  workloadApi(name: WorkloadName): string;
  /** How a process of `name` is started: as a user of its own in SPIRE's uid layout, else as the demo's. */
  runAs(name: WorkloadName): ChildStartOptions;
  /** Writes `path` (0600) for `name` to open: owned by its user where it runs as one. */
  prepareFile(path: string, name: WorkloadName, content?: string): Promise<void>;
  /** Words to put before a hand-typed command of `name` (`setpriv …` in the uid layout). */
  handPrefix(name: WorkloadName): readonly string[];
}
