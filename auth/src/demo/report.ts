import { shellWords, terminalText } from '@notegate/kit';
import type { RunningChild } from '../shared/child-processes.js';
import type { AuditEntry } from './audit-trail.js';
import type { Deployment } from './deployment.js';
import type { Check, Scenario, ScenarioOutcome, StepReport } from './scenario.js';
import type { Style } from './style.js';
import { wrap } from './text-wrap.js';

/** How the report is drawn: styles, the width lines are wrapped at, and how much is shown. */
export interface Layout {
  readonly style: Style;
  readonly width: number;
  readonly verbose: boolean;
}

/** Widest header rule; the report reads in an 80-column terminal. */
const MAX_RULE_WIDTH = 78;
const COMPONENT_WIDTH = 18;
/** Where the reason of a compact audit line starts: under its component. */
const REASON_INDENT = ' '.repeat(16);

/** What the report needs of one finished scenario. */
export interface ScenarioResult {
  readonly scenario: Scenario;
  readonly outcome: ScenarioOutcome;
  readonly audit: readonly AuditEntry[];
  readonly durationMs: number;
}

export function passed(result: ScenarioResult): boolean {
  return result.outcome.checks.length > 0 && result.outcome.checks.every((check) => check.pass);
}

export function banner({ style }: Layout): string {
  return `${style.bold('notegate demo')} ${style.dim('— workload identity for MCP tools, end to end')}\n\n`;
}

export function deploymentBlock(deployment: Deployment, startupMs: number, layout: Layout): string {
  const { style } = layout;
  const { identity } = deployment;
  const rows: (readonly [string, string, string])[] = [
    ...identity.rows,
    ['authz', deployment.issuer, `JWT bundles from the Workload API, --svid-replay ${identity.replayMode}`],
    ['notes-a', deployment.notesA.resource, 'trusts authz; agent may read+write, reader may read'],
    ['notes-b', deployment.notesB.resource, 'trusts authz; agent may read'],
    ['notes-c', deployment.notesC.resource, `trusts ${deployment.untrusted.issuer}, which the agent does not`],
  ];
  const width = Math.max(...rows.map(([, where]) => where.length));
  const lines = rows.map(([name, where, what]) => `  ${name.padEnd(17)}  ${where.padEnd(width)}  ${style.dim(what)}`);
  const heading = `${style.bold('Deployment')} ${style.dim(`(real processes on loopback, up in ${seconds(startupMs)})`)}`;
  const search =
    deployment.vaults.modelId === 'none'
      ? 'lexical-only index (no model in the cache): notes.search ranks by BM25'
      : `index with vectors of ${deployment.vaults.modelId}: notes.search is hybrid (BM25 + vectors)`;
  const vaults = `vaults: demo/vaults/handbook on every notes server, plus a notes vault of its own; ${search}`;
  const files =
    identity.workloadDir === deployment.dir
      ? `policy, sockets, vaults, index and audit logs in ${deployment.dir}`
      : `vaults and index in ${deployment.dir}; SPIRE, policy and audit logs in ${identity.workloadDir}`;
  return `${heading}\n${lines.join('\n')}\n  ${style.dim(vaults)}\n  ${style.dim(files)}\n`;
}

/** Servers that ended while the demo ran (none should), with the end of their stderr (SPIRE's log is on stdout). */
export function crashReport(ended: readonly RunningChild[], { style }: Layout): string {
  return ended
    .map((server) => {
      const { stdout, stderr } = server.output;
      const tail = (stderr.trim() === '' ? stdout : stderr)
        .trim()
        .split('\n')
        .slice(-5)
        .map((line) => terminalText(line))
        .join('\n    ');
      return style.red(`\n${server.name} exited (${server.endedWith}) during the run:\n    ${tail}\n`);
    })
    .join('');
}

export function scenarioHeader(index: number, total: number, title: string, layout: Layout): string {
  return `\n${rule(`━━ ${index}/${total}  ${title} `, layout)}\n`;
}

export function scenarioBody(result: ScenarioResult, layout: Layout): string {
  const { style, width, verbose } = layout;
  const { scenario, outcome, audit } = result;
  const [first = '', ...more] = wrap(scenario.expected, width, ' '.repeat(10), ' '.repeat(10));
  const expected = [`${style.bold('Expected')}  ${first.trimStart()}`, ...more];
  const auditNote = verbose ? 'raw lines' : 'compact; --verbose shows every field';
  return [
    `${expected.join('\n')}\n`,
    `\n${style.bold('What happened')}\n${outcome.steps.map((step) => stepLines(step, layout)).join('')}`,
    `\n${outcome.checks.map((check) => checkLine(check, layout)).join('')}`,
    `\n${style.bold('Audit lines')} ${style.dim(`(${audit.length} from every --audit-log, in time order; ${auditNote})`)}\n`,
    audit.length === 0 ? `  ${style.dim('(none)')}\n` : audit.map((entry) => auditLines(entry, layout)).join(''),
    `\n${verdict(passed(result), style)}  ${style.bold(scenario.title)} ${style.dim(`(${seconds(result.durationMs)})`)}\n`,
  ].join('');
}

export function summary(results: readonly ScenarioResult[], elapsedMs: number, layout: Layout): string {
  const { style } = layout;
  const width = Math.max(...results.map((result) => result.scenario.title.length));
  const rows = results.map(
    (result, index) => `  ${index + 1}  ${result.scenario.title.padEnd(width)}  ${verdict(passed(result), style)}`,
  );
  const failures = results.filter((result) => !passed(result)).length;
  const conclusion =
    failures === 0
      ? style.green(`All ${results.length} scenarios behaved as expected.`)
      : style.red(`${failures} of ${results.length} scenarios did not behave as expected.`);
  return `\n${rule('━━ Summary ', layout)}\n${rows.join('\n')}\n\n${conclusion} ${style.dim(`${seconds(elapsedMs)} so far.`)}\n`;
}

function rule(label: string, { style, width }: Layout): string {
  return style.cyan(style.bold(label.padEnd(Math.min(width, MAX_RULE_WIDTH), '━')));
}

function stepLines(step: StepReport, { style, width, verbose }: Layout): string {
  const lines = [`  ${style.bold('▸')} ${step.title} ${style.dim(`(${seconds(step.run.durationMs)})`)}`];
  for (const happened of step.happened) lines.push(...wrap(happened, width, '      ', '          '));
  if (verbose) {
    const dim = (line: string) => style.dim(line);
    // One line, not wrapped: it is there to be copied.
    lines.push(dim(`      $ notegate ${shellWords(step.run.args)}`));
    lines.push(...labelled('stdout', step.run.stdout).map(dim));
    lines.push(...labelled('stderr', step.run.stderr).map(dim));
  }
  return `${lines.join('\n')}\n`;
}

/**
 * Output lines as they are (JSON is not wrapped: it stays copyable), their control characters shown
 * as escapes (docs/security.md#operators-terminals).
 */
function labelled(label: string, text: string): string[] {
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => `      ${label}: ${terminalText(line)}`);
}

function checkLine(check: Check, { style, width }: Layout): string {
  const [first = '', ...rest] = wrap(check.label, width - 8, '', '');
  return `  ${verdict(check.pass, style)}  ${[first, ...rest.map((line) => `        ${line}`)].join('\n')}\n`;
}

function verdict(pass: boolean, style: Style): string {
  return pass ? style.green(style.bold('PASS')) : style.red(style.bold('FAIL'));
}

/** Compact: time, component, decision, who and tool on one line, the reason under it. Verbose: the raw line. */
function auditLines(entry: AuditEntry, { style, width, verbose }: Layout): string {
  if (verbose || entry.component === 'unparsed') return `  ${entry.raw}\n`;
  const decision = entry.decision === 'allow' ? style.green('allow') : style.yellow(entry.decision.padEnd(5));
  const who = [entry.spiffeId ?? '(no SPIFFE ID)', entry.tool].filter(Boolean).join('  ');
  const head = `  ${style.dim(clockTime(entry.timestamp))}  ${entry.component.padEnd(COMPONENT_WIDTH)}  ${decision}  ${who}`;
  const reason = wrap(entry.reason, width, REASON_INDENT, REASON_INDENT).map((line) => style.dim(line));
  return `${head}\n${reason.join('\n')}\n`;
}

/** `HH:MM:SS.mmm` of an ISO 8601 timestamp. */
function clockTime(timestamp: string): string {
  return /T(\d\d:\d\d:\d\d\.\d{3})/.exec(timestamp)?.[1] ?? timestamp;
}

export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
