import { isRecord } from '@notegate/kit';
import type { AgentRun } from './scenario.js';

/** The JSON lines the agent printed on stdout (the result, then the replay report with --steal-token). */
export function stdoutObjects(run: AgentRun): Record<string, unknown>[] {
  return run.stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      try {
        const parsed: unknown = JSON.parse(line);
        return isRecord(parsed) ? parsed : {};
      } catch {
        return {};
      }
    });
}

/** A tool result's structuredContent (or an empty object). */
export function structuredContent(run: AgentRun): Record<string, unknown> {
  const content = stdoutObjects(run)[0]?.structuredContent;
  return isRecord(content) ? content : {};
}

/** The names in a tools/list result. */
export function toolNames(run: AgentRun): string[] {
  const tools = stdoutObjects(run)[0]?.tools;
  if (!Array.isArray(tools)) return [];
  return tools.flatMap((tool) => (isRecord(tool) && typeof tool.name === 'string' ? [tool.name] : []));
}

/** The agent's one-line failure (`notegate agent: <step>: <reason>: <detail>`), without the prefix. */
export function failureLine(run: AgentRun): string | undefined {
  const line = run.stderr.split('\n').find((text) => text.startsWith('notegate agent: '));
  return line?.slice('notegate agent: '.length);
}

/** `exit 0` or `exit 3: issuer_selection: issuer_refused: …`. */
export function exitSummary(run: AgentRun): string {
  const failure = failureLine(run);
  return failure === undefined ? `exit ${run.code}` : `exit ${run.code}: ${failure}`;
}
