import type { McpServer, StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import { type NotesToolSpec, runTool, toolErrorResult } from '@notegate/rag';
import type { z } from 'zod';
import type { ProtocolError } from '../../errors/protocol-error.js';
import type { ArgumentScreening, ToolRegistration } from './tool-catalog.js';

/** What screening makes of a call's parsed arguments: a refusal, or what the run needs. */
export type Preparation<Ready> = { readonly refused: ProtocolError } | { readonly ready: Ready };

/**
 * A tool as this server defines it: a notes tool of @notegate/rag's shape, with the scope a caller needs,
 * a preparation that refuses with this server's protocol errors, and where faults are told.
 */
export interface ToolDefinition<In extends z.ZodType, Out extends z.ZodType<Record<string, unknown>>, Ready>
  extends Omit<NotesToolSpec<In, Out, Ready>, 'prepare' | 'text'> {
  readonly scope?: string;
  /** Decided before dispatch, once per call (see ToolRegistration.screen), from the parsed arguments. */
  readonly prepare: (args: z.output<In>) => Preparation<Ready>;
  /** The result as text for the client's reader; default the JSON of the structured content. */
  readonly text?: (result: z.output<Out>) => string;
  /** Told about every failure's cause; the client only gets a fixed text (a ToolFailure's, else a generic one). */
  readonly onFault: (tool: string, err: unknown) => void;
}

/**
 * Turns a typed tool definition into a registration: the same zod schemas are advertised by the SDK,
 * checked before dispatch, and checked again by the SDK. What screening prepared for a call is handed
 * to the handler the SDK runs for it, keyed by the web `Request` the SDK is given and passes on to
 * handlers (`ctx.http.req`), so a call is prepared once. Results carry structured content and a text
 * block (the same JSON unless the tool says otherwise).
 */
export function defineTool<In extends z.ZodType, Out extends z.ZodType<Record<string, unknown>>, Ready>(
  definition: ToolDefinition<In, Out, Ready>,
): ToolRegistration {
  const { name, scope, title, description, input, output, prepare, run, onFault } = definition;
  const text = definition.text ?? ((result: z.output<Out>) => JSON.stringify(result));
  const prepared = new WeakMap<Request, { readonly ready: Ready }>();
  return {
    name,
    ...(scope !== undefined && { scope }),
    screen: (args): ArgumentScreening => {
      const parsed = input.safeParse(args ?? {});
      if (!parsed.success) return { invalid: parsed.error.issues.map(describeIssue).join('; ') };
      const preparation = prepare(parsed.data);
      if ('refused' in preparation) return preparation;
      return { accepted: (request) => void prepared.set(request, preparation) };
    },
    register: (server: McpServer) => {
      // Widened to the SDK's schema type so the callback receives the validated value as unknown;
      // parsing it again with the same schema gives it back its static type.
      const inputSchema: StandardSchemaWithJSON = input;
      const outputSchema: StandardSchemaWithJSON = output;
      server.registerTool(name, { title, description, inputSchema, outputSchema }, async (args, ctx) => {
        const request = ctx.http?.req;
        // A server that dispatches calls it did not screen (the SDK's plain stateless pattern) prepares here.
        const preparation = (request && prepared.get(request)) ?? prepare(input.parse(args));
        if ('refused' in preparation) return toolErrorResult(preparation.refused.description);
        return runTool({ name, run, text }, preparation.ready, onFault);
      });
    },
  };
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const path = issue.path.length > 0 ? issue.path.join('.') : '(arguments)';
  return `${path}: ${issue.message}`;
}
