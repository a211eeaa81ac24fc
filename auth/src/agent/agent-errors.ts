import { terminalJson, terminalText } from '@notegate/kit';
import { clip } from '../shared/clip.js';

/** The agent's ordered steps (docs/protocol.md#agent-notegate-agent), then the tool call and the replay. */
export type AgentStep =
  | 'protected_resource_metadata'
  | 'issuer_selection'
  | 'authorization_server_metadata'
  | 'svid'
  | 'token_request'
  | 'mcp_call'
  | 'steal_token';

/**
 * What kind of failure it was, which decides the exit code:
 * - `refused`: a party said no on purpose — the agent's own checks (issuer_refused, a resource or issuer
 *   mismatch in metadata), an OAuth error from the token endpoint, a 403 or JSON-RPC refusal from the server;
 * - `authentication`: the identity could not be proven or the token was not accepted (no SVID, 401);
 * - `transport`: the conversation itself failed (connection, timeout, redirect, 5xx, malformed documents);
 * - `failure`: anything else (a tool that reported an error).
 */
export type FailureClass = 'refused' | 'authentication' | 'transport' | 'failure';

/** Exit codes of `notegate agent` and `mcp-svid-stdio`; 0 and 2 mean what they mean for every executable. */
export const AGENT_EXIT = {
  ok: 0,
  failure: 1,
  usage: 2,
  refused: 3,
  authentication: 4,
  transport: 5,
  /** `--steal-token`: the other server accepted the replayed token (its audience check is missing). */
  replayAccepted: 6,
} as const;

/** The failure classes as `--help` and docs/protocol.md print them (shared by the agent and the wrapper). */
export const FAILURE_CLASS_LINES = [
  `${AGENT_EXIT.usage}  bad option or value`,
  `${AGENT_EXIT.refused}  refused: issuer_refused, a resource or issuer mismatch in metadata, a token endpoint error (400/401), a 403 insufficient_scope or a JSON-RPC refusal from the server`,
  `${AGENT_EXIT.authentication}  authentication failed: no SVID from the Workload API, or the server answered 401`,
  `${AGENT_EXIT.transport}  transport: connection refused, timeout, redirect, HTTP 5xx or temporarily_unavailable, malformed metadata or responses`,
];

/** Longest piece of server-supplied text quoted in an error line. */
const MAX_QUOTED_CHARS = 300;

/**
 * A failed agent step. The message is one line: `<step>: <reason>: <detail>`, where `reason` is a
 * stable code (`issuer_refused`, an OAuth error code, `timeout`, …) and `detail` says what was seen
 * (its line breaks and other control characters shown as escapes).
 */
export class AgentError extends Error {
  readonly code = 'ERR_AGENT';
  readonly step: AgentStep;
  readonly reason: string;
  readonly failureClass: FailureClass;

  constructor(step: AgentStep, reason: string, failureClass: FailureClass, detail: string) {
    super(`${step}: ${reason}: ${terminalText(detail)}`);
    this.name = 'AgentError';
    this.step = step;
    this.reason = reason;
    this.failureClass = failureClass;
  }

  get exitCode(): number {
    return AGENT_EXIT[this.failureClass];
  }
}

export const refused = (step: AgentStep, reason: string, detail: string) =>
  new AgentError(step, reason, 'refused', detail);
export const authenticationFailed = (step: AgentStep, reason: string, detail: string) =>
  new AgentError(step, reason, 'authentication', detail);
export const transportFailed = (step: AgentStep, reason: string, detail: string) =>
  new AgentError(step, reason, 'transport', detail);

/**
 * Server-supplied text made safe for a one-line message on a terminal, length bounded: a JSON string
 * whose control and bidirectional characters are escapes (docs/security.md#operators-terminals).
 */
export function quoted(text: string): string {
  return terminalJson(clip(text, MAX_QUOTED_CHARS));
}

/** The same without quotes, for text that ends the line (a WWW-Authenticate challenge). */
export function plain(text: string): string {
  return terminalText(clip(text, MAX_QUOTED_CHARS));
}
