import { requestError } from '../../errors/mcp-request-errors.js';
import type { AccessTokenClaims } from '../../oauth/access-token.js';
import { clip } from '../../shared/clip.js';
import { checkToolScope } from '../bearer/scope-check.js';
import type { ScopedTool, ToolCatalog } from '../tools/tool-catalog.js';
import type { ToolCall } from './rpc-message.js';

/** An unknown tool has no declared scope: 400 invalid_request (docs/protocol.md#challenges-and-error-bodies). */
export function knownTool(catalog: ToolCatalog, call: ToolCall): ScopedTool {
  const tool = catalog.get(call.name);
  if (!tool) throw requestError('ERR_UNKNOWN_TOOL', `tool ${clip(call.name)}`);
  return tool;
}

/**
 * Before the SDK sees the call: the tool's scope must be granted (else HTTP
 * 403, which clients act on, rather than an in-band tool error) and the
 * arguments must match the tool's input schema (a JSON-RPC invalid-params error),
 * and the tool must not refuse them (docs/protocol.md#tools: a fixed message, the detail audited).
 * Returns the hand-over of the screened call to the request the SDK will serve.
 */
export function authorizeToolCall(
  tool: ScopedTool,
  claims: AccessTokenClaims,
  call: ToolCall,
): (request: Request) => void {
  checkToolScope(claims, tool.scope);
  const screened = tool.screen(call.arguments);
  if ('invalid' in screened) throw requestError('ERR_INVALID_ARGUMENTS', clip(screened.invalid));
  if ('refused' in screened) throw screened.refused;
  return screened.accepted;
}
