import {
  type NotesEngine,
  type NotesToolSpec,
  notesTools as notesToolSpecs,
  type ToolPreparation,
} from '@notegate/rag';
import type { z } from 'zod';
import { requestError } from '../../errors/mcp-request-errors.js';
import type { ProtocolError } from '../../errors/protocol-error.js';
import { toolError } from '../../errors/tool-errors.js';
import { NOTES_TOOL_SCOPES } from '../../oauth/notes-scopes.js';
import { defineTool, type Preparation } from './define-tool.js';
import type { ToolRegistration } from './tool-catalog.js';

/**
 * The notes tools of @notegate/rag (docs/protocol.md#tools) with their scopes: notes.search and notes.read
 * under notes:read, notes.write under notes:write. Their refusals become the server's audited JSON-RPC
 * errors, with the tools' own fixed texts.
 */
export function notesTools(engine: NotesEngine, onFault: (tool: string, err: unknown) => void): ToolRegistration[] {
  const tools = notesToolSpecs(engine);
  return [
    scoped(tools.search, onFault),
    scoped(tools.read, onFault),
    ...(tools.write ? [scoped(tools.write, onFault)] : []),
  ];
}

/** A tool with the scope the table gives it; one the table lacks has none, and the catalog refuses to start. */
function scoped<In extends z.ZodType, Out extends z.ZodType<Record<string, unknown>>, Ready>(
  spec: NotesToolSpec<In, Out, Ready>,
  onFault: (tool: string, err: unknown) => void,
): ToolRegistration {
  const scope = NOTES_TOOL_SCOPES.get(spec.name);
  return defineTool({
    ...spec,
    ...(scope !== undefined && { scope }),
    onFault,
    prepare: (args) => asPreparation(spec.prepare(args)),
  });
}

function asPreparation<Ready>(preparation: ToolPreparation<Ready>): Preparation<Ready> {
  if (!('refused' in preparation)) return preparation;
  const { code, detail } = preparation.refused;
  const refused: ProtocolError =
    code === 'ERR_INVALID_ARGUMENTS' ? requestError('ERR_INVALID_ARGUMENTS', detail) : toolError(code, detail);
  return { refused };
}
