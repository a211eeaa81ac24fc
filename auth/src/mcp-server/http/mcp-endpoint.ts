import type { IncomingMessage, ServerResponse } from 'node:http';
import { describeThrown } from '@notegate/kit';
import { sendJson, sendJsonAndClose } from '@notegate/kit/http';
import { requestError } from '../../errors/mcp-request-errors.js';
import { ProtocolError } from '../../errors/protocol-error.js';
import { clip } from '../../shared/clip.js';
import { extractBearerToken } from '../bearer/extract-bearer-token.js';
import type { AccessTokenVerifier } from '../bearer/verify-access-token.js';
import { authorizeToolCall, knownTool } from '../request/authorize-tool-call.js';
import { headerCall } from '../request/header-call.js';
import { screenHeaders } from '../request/header-screening.js';
import { readJsonBody } from '../request/read-json-body.js';
import { parseRpcMessage, type RpcMessage, toolCallOf } from '../request/rpc-message.js';
import type { ToolCatalog } from '../tools/tool-catalog.js';
import { type DecisionAudit, type DecisionTrail, newTrail } from './decision-audit.js';
import { isBearerError, refusalResponse } from './refusal.js';
import type { ResourceIdentity } from './resource-identity.js';
import type { SdkDispatcher } from './sdk-dispatch.js';
import { abortOnDisconnect, toSdkRequest, writeWebResponse } from './web-bridge.js';

export interface McpEndpointOptions {
  readonly identity: ResourceIdentity;
  readonly verify: AccessTokenVerifier;
  readonly catalog: ToolCatalog;
  readonly dispatcher: SdkDispatcher;
  readonly audit: DecisionAudit;
}

/**
 * POST on the MCP endpoint, one decision per request:
 *   1. headers: Origin, declared size, Content-Type, Accept;
 *   2. bearer token (docs/protocol.md#bearer-checks, in order), from the headers alone;
 *   3. body, only now: at most 1 MiB, at most 64 levels deep, JSON, one JSON-RPC message, a
 *      tools/call names a tool;
 *   4. tools/call: known tool, its scope granted, arguments valid and prepared once (handed to the SDK's run);
 *   5. the SDK serves it with only the granted tools registered.
 * An unauthenticated request costs no body read or parse (docs/security.md#security-properties): its
 * 401 is answered from the headers and the connection closed, so its refusal cannot echo a JSON-RPC id
 * (its challenge names every scope of the server, which needs no body); a 2026-07-28 request names its
 * method and tool in headers, which its audit line then carries. A declared oversize body is refused
 * from its headers before the token is looked at, so an unauthenticated 2 MiB body gets 413, not 401.
 */
export function createMcpEndpoint(options: McpEndpointOptions) {
  const { identity, verify, catalog, dispatcher, audit } = options;
  const serverScope = catalog.scopesSupported.join(' ');

  async function post(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const trail = newTrail(req.headers.authorization);
    let message: RpcMessage | undefined;
    let bodyRead = false;
    try {
      screenHeaders(req.headers, identity.origin);
      const claimed = headerCall(req.headers);
      trail.method = claimed?.method;
      trail.tool = claimed?.tool ?? null;
      const claims = await verify(extractBearerToken(req.headers.authorization), trail);
      trail.claims = claims;
      const body = await readJsonBody(req);
      bodyRead = true;
      message = parseRpcMessage(body);
      trail.method = clip(message.method);
      const call = toolCallOf(message);
      trail.tool = call ? clip(call.name) : null;
      trail.scope = call ? catalog.get(call.name)?.scope : undefined;
      const accepted = call && authorizeToolCall(knownTool(catalog, call), claims, call);
      const sdkRequest = toSdkRequest(identity.resource, req.headers, abortOnDisconnect(res));
      accepted?.(sdkRequest);
      const response = await dispatcher.dispatch(catalog.toolsGrantedBy(claims.scopes), sdkRequest, body);
      audit.allow(trail, claims, response.status);
      await writeWebResponse(res, response).catch(() => res.destroy());
    } catch (err) {
      refuse(res, trail, message, bodyRead, err);
    }
  }

  /** GET, DELETE and every other method: no GET stream and no sessions here (stateless), so 405. */
  function refuseMethod(req: IncomingMessage, res: ServerResponse): void {
    const trail = newTrail(req.headers.authorization);
    trail.method = `HTTP ${req.method ?? ''}`;
    refuse(res, trail, undefined, false, requestError('ERR_METHOD_NOT_ALLOWED', `method ${req.method}`));
  }

  function refuse(
    res: ServerResponse,
    trail: DecisionTrail,
    message: RpcMessage | undefined,
    bodyRead: boolean,
    err: unknown,
  ): void {
    const error = err instanceof ProtocolError ? err : requestError('ERR_SERVER_FAULT', describeThrown(err));
    const response = refusalResponse(error, {
      message,
      scope: isBearerError(error) ? trail.scope : undefined,
      serverScope,
      metadataUrl: identity.metadataUrl,
    });
    // The decision is on record before the client can see it (docs/protocol.md#audit-lines).
    audit.deny(trail, error);
    if (!res.headersSent) {
      // An unread body is not drained: the connection closes after the answer.
      const send = bodyRead ? sendJson : sendJsonAndClose;
      send(res, response.status, response.body, response.headers);
    } else {
      res.destroy();
    }
  }

  return { post, refuseMethod };
}
