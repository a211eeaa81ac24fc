import type { McpServer, StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import type { z } from 'zod';
import type { ProtocolError } from '../../errors/protocol-error.js';
import type { ToolRegistration } from './tool-catalog.js';

/** A failure the client may see word for word (fixed texts only, never exception details). */
export class ToolFailure extends Error {
  constructor(readonly publicMessage: string) {
    super(publicMessage);
    this.name = 'ToolFailure';
  }
}

export interface ToolDefinition<In extends z.ZodType, Out extends z.ZodType<Record<string, unknown>>> {
  readonly name: string;
  readonly scope?: string;
  readonly title: string;
  readonly description: string;
  readonly input: In;
  readonly output: Out;
  readonly run: (args: z.output<In>) => Promise<z.output<Out>>;
  /** A refusal decided before dispatch (see ToolRegistration.screen), given the parsed arguments. */
  readonly refusal?: (args: z.output<In>) => ProtocolError | undefined;
  /** The result as text for the client's reader; default the JSON of the structured content. */
  readonly text?: (result: z.output<Out>) => string;
  /** Told about unexpected exceptions; the client only gets a fixed text. */
  readonly onFault: (tool: string, err: unknown) => void;
}

/**
 * Turns a typed tool definition into a registration: the same zod schemas
 * are advertised by the SDK, checked before dispatch, and checked again by
 * the SDK. Results carry structured content and a text block (the same JSON unless the tool says otherwise).
 */
export function defineTool<In extends z.ZodType, Out extends z.ZodType<Record<string, unknown>>>(
  definition: ToolDefinition<In, Out>,
): ToolRegistration {
  const { name, scope, title, description, input, output, run, onFault, refusal } = definition;
  const text = definition.text ?? ((result: z.output<Out>) => JSON.stringify(result));
  return {
    name,
    ...(scope !== undefined && { scope }),
    screen: (args) => {
      const parsed = input.safeParse(args ?? {});
      if (!parsed.success) return { invalid: parsed.error.issues.map(describeIssue).join('; ') };
      const refused = refusal?.(parsed.data);
      return refused && { refused };
    },
    register: (server: McpServer) => {
      // Widened to the SDK's schema type so the callback receives the validated value as unknown;
      // parsing it again with the same schema gives it back its static type.
      const inputSchema: StandardSchemaWithJSON = input;
      const outputSchema: StandardSchemaWithJSON = output;
      server.registerTool(name, { title, description, inputSchema, outputSchema }, async (args) => {
        try {
          const result = await run(input.parse(args));
          return { content: [{ type: 'text', text: text(result) }], structuredContent: result };
        } catch (err) {
          if (!(err instanceof ToolFailure)) onFault(name, err);
          const text = err instanceof ToolFailure ? err.publicMessage : 'The tool failed; the server logged the cause';
          return { content: [{ type: 'text', text }], isError: true };
        }
      });
    },
  };
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const path = issue.path.length > 0 ? issue.path.join('.') : '(arguments)';
  return `${path}: ${issue.message}`;
}
