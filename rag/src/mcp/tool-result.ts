import { TOOL_FAILURES, ToolFailure } from './tool-errors.js';

/** What a tool's run is made of, as a server calls it. */
export interface ToolRun<Ready, Result extends Record<string, unknown>> {
  readonly name: string;
  readonly run: (ready: Ready) => Promise<Result>;
  readonly text: (result: Result) => string;
}

/** A tool error: a result with `isError` and one fixed text block (docs/protocol.md#tools). */
export function toolErrorResult(text: string) {
  return { content: [{ type: 'text' as const, text }], isError: true };
}

/**
 * Runs a prepared call into an MCP tool result: the structured content and its text block, or a tool
 * error with a ToolFailure's fixed text (a generic one for anything else). Every failure's cause goes to
 * `onFault`, never to the client.
 */
export async function runTool<Ready, Result extends Record<string, unknown>>(
  tool: ToolRun<Ready, Result>,
  ready: Ready,
  onFault: (tool: string, err: unknown) => void,
) {
  try {
    const result = await tool.run(ready);
    return { content: [{ type: 'text' as const, text: tool.text(result) }], structuredContent: result };
  } catch (err) {
    const failure = err instanceof ToolFailure ? err : undefined;
    onFault(tool.name, failure?.cause ?? err);
    return toolErrorResult(failure ? failure.publicMessage : TOOL_FAILURES.ERR_TOOL_FAULT);
  }
}
