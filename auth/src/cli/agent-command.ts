import { isRecord, terminalJson, terminalText } from '@notegate/kit';
import type { Command, CommandIo, ParsedOptions } from '@notegate/kit/cli';
import { processIo, UsageError } from '@notegate/kit/cli';
import { AGENT_EXIT, AgentError, FAILURE_CLASS_LINES, quoted } from '../agent/agent-errors.js';
import { type FetchAccessTokenOptions, fetchAccessToken } from '../agent/fetch-access-token.js';
import type { McpOperation } from '../agent/mcp-call.js';
import { callMcpServer } from '../agent/mcp-call.js';
import { replayToken } from '../agent/replay-token.js';
import { KNOWN_TOOLS, scopeForTool } from '../agent/tool-scopes.js';
import { requireResourceForm, sameResource } from '../oauth/identifier.js';
import {
  openTokenFetch,
  parseScopeFlag,
  parseTokenFlags,
  tokenRequestOptions,
  tokenTargetOptions,
} from './token-options.js';

const options = {
  ...tokenTargetOptions,
  scope: {
    type: 'string',
    valueName: '"A B"',
    defaultText: `the scope the tool needs (${KNOWN_TOOLS.map((t) => `${t}: ${scopeForTool(t)}`).join(', ')}); for the tool list, every scope in the server's scopes_supported`,
    description: 'Scopes to request, separated by single spaces.',
  },
  tool: {
    type: 'string',
    valueName: 'NAME',
    defaultText: 'none: list the tools',
    description: 'Tool to call.',
  },
  arguments: {
    type: 'string',
    valueName: 'JSON',
    default: '{}',
    description: 'Tool arguments, a JSON object (with --tool).',
  },
  'steal-token': {
    type: 'string',
    valueName: 'URL',
    defaultText: 'off',
    description:
      'After the call, replay the same token against the MCP server at URL (another resource) and report its answer; ' +
      'exit 0 when it refuses with 401.',
  },
  ...tokenRequestOptions,
} as const;

type AgentOptions = typeof options;

export function agentCommand(io: CommandIo = processIo): Command<AgentOptions> {
  return {
    name: 'notegate agent',
    usage: 'notegate agent --resource URL --trusted-issuer URL [--tool NAME --arguments JSON] [options]',
    summary:
      'Agent client: reads the resource metadata, takes the first advertised issuer on the --trusted-issuer\n' +
      'allowlist (issuer_refused otherwise, before any request to an issuer), checks its metadata, fetches a\n' +
      'JWT-SVID for it, gets an access token and calls the tool (or lists the tools) with the MCP SDK client.\n' +
      'Results: one JSON line on stdout (with --steal-token, a second line: the replay report).\n' +
      'Failures: one line on stderr, "<step>: <reason>: <detail>".\n\nExit codes:\n' +
      [
        `${AGENT_EXIT.ok}  success (with --steal-token: the other server refused the token with 401)`,
        `${AGENT_EXIT.failure}  the tool reported an error, or --steal-token got another answer than 401`,
        ...FAILURE_CLASS_LINES,
        `${AGENT_EXIT.replayAccepted}  --steal-token: the other server accepted the replayed token`,
      ]
        .map((line) => `  ${line}`)
        .join('\n'),
    options,
    async run({ options: values }) {
      const flags = parseAgentFlags(values);
      const tokens = openTokenFetch(flags.token, flags.scope);
      try {
        return await runAgent(flags, tokens.request, io);
      } catch (err) {
        if (!(err instanceof AgentError)) throw err;
        io.stderr(`notegate agent: ${terminalText(err.message)}\n`);
        return err.exitCode;
      } finally {
        tokens.close();
      }
    },
  };
}

type AgentFlags = ReturnType<typeof parseAgentFlags>;

async function runAgent(flags: AgentFlags, request: FetchAccessTokenOptions, io: CommandIo): Promise<number> {
  const { timeoutMs } = flags.token;
  const token = await fetchAccessToken(request);
  const { result } = await callMcpServer({ token, operation: flags.operation, timeoutMs });
  io.stdout(`${terminalJson(result)}\n`);
  if (result.isError === true) {
    io.stderr(`notegate agent: mcp_call: tool_error: the tool reported an error: ${quoted(toolErrorText(result))}\n`);
    return AGENT_EXIT.failure;
  }
  if (flags.stealToken === undefined) return AGENT_EXIT.ok;
  const report = await replayToken({
    target: flags.stealToken,
    accessToken: token.accessToken,
    operation: flags.operation,
    timeoutMs,
  });
  io.stdout(`${terminalJson(report)}\n`);
  const answer = `${report.status}${report.error ? ` ${report.error}` : ''}`;
  if (report.accepted) {
    io.stderr(
      `notegate agent: steal_token: replay_accepted: ${report.target} accepted a token minted for ${token.resource} (${answer})\n`,
    );
    return AGENT_EXIT.replayAccepted;
  }
  if (report.status !== 401) {
    io.stderr(
      `notegate agent: steal_token: unexpected_answer: ${report.target} answered ${answer}, not 401 invalid_token\n`,
    );
    return AGENT_EXIT.failure;
  }
  io.stderr(`notegate agent: steal_token: ${report.target} refused the replayed token: ${answer}\n`);
  return AGENT_EXIT.ok;
}

function parseAgentFlags(values: ParsedOptions<AgentOptions>) {
  const token = parseTokenFlags(values, process.env);
  const operation = parseOperation(values.tool, values.arguments);
  const stealToken = values['steal-token'];
  if (stealToken !== undefined) {
    requireResourceForm(stealToken, '--steal-token');
    if (sameResource(stealToken, token.resource)) {
      throw new UsageError('--steal-token: name another server than --resource (the token is valid there)');
    }
  }
  return { token, operation, scope: defaultScope(values.scope, operation), stealToken };
}

function parseOperation(tool: string | undefined, args: string): McpOperation {
  if (tool === undefined) {
    if (args !== '{}') throw new UsageError('--arguments needs --tool');
    return { kind: 'list_tools' };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(args);
  } catch {
    throw new UsageError(`--arguments: '${args}' is not JSON`);
  }
  if (!isRecord(parsed)) throw new UsageError('--arguments: must be a JSON object');
  return { kind: 'call_tool', name: tool, arguments: parsed };
}

/** The agent's default is least privilege: the scope the tool needs; the tool list takes the library default. */
function defaultScope(scope: string | undefined, operation: McpOperation): string | undefined {
  if (scope !== undefined) return parseScopeFlag(scope);
  if (operation.kind === 'list_tools') return undefined;
  const needed = scopeForTool(operation.name);
  if (needed === undefined) {
    throw new UsageError(`--scope is required for tool '${operation.name}' (known tools: ${KNOWN_TOOLS.join(', ')})`);
  }
  return needed;
}

function toolErrorText(result: Record<string, unknown>): string {
  const content = Array.isArray(result.content) ? result.content : [];
  const texts = content.filter(isRecord).map((block) => (typeof block.text === 'string' ? block.text : ''));
  return texts.join(' ').trim() || '(no text)';
}
