import type { AuditEntry } from './audit-trail.js';
import type { WorkloadName } from './demo-config.js';
import type { NotesServerInfo } from './deployment.js';
import type { SvidCounter } from './identity.js';

/** One `notegate agent` process the demo ran, and how it ended. */
export interface AgentRun {
  /** Its full command line after `notegate`. */
  readonly args: readonly string[];
  /** Exit code, or the signal that ended it. */
  readonly code: number | NodeJS.Signals;
  readonly stdout: string;
  readonly stderr: string;
  readonly durationMs: number;
}

/** One line of a scenario's verdict. */
export interface Check {
  readonly label: string;
  readonly pass: boolean;
}

/** An agent run as the report shows it: what was asked, and what happened in a few lines. */
export interface StepReport {
  readonly title: string;
  readonly run: AgentRun;
  readonly happened: readonly string[];
}

export interface ScenarioOutcome {
  readonly steps: readonly StepReport[];
  readonly checks: readonly Check[];
}

/** The parts of the deployment the scenarios look at (a `Deployment` is one). */
export interface ScenarioDeployment {
  readonly notesA: NotesServerInfo;
  readonly notesB: NotesServerInfo;
  readonly notesC: NotesServerInfo;
  readonly untrusted: { readonly issuer: string; readonly requests: readonly string[] };
  readonly svids: SvidCounter;
}

/** What a scenario may use: the deployment, agent runs, and the audit lines written since it began. */
export interface ScenarioContext {
  readonly deployment: ScenarioDeployment;
  /**
   * Runs `notegate agent --resource <resource>` as `caller` (its Workload API socket), with the
   * deployment's authz as the one trusted issuer, the agent audit file, and `args`.
   */
  agent(caller: WorkloadName, resource: string, args?: readonly string[]): Promise<AgentRun>;
  auditSoFar(): Promise<AuditEntry[]>;
}

export interface Scenario {
  readonly title: string;
  /** What should happen, in a sentence or two. */
  readonly expected: string;
  run(context: ScenarioContext): Promise<ScenarioOutcome>;
}
