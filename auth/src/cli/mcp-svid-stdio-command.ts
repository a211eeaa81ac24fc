import type { Command, CommandIo, ParsedOptions } from '@notegate/kit/cli';
import { operatorLog, parseInteger, processIo, UsageError } from '@notegate/kit/cli';
import { AGENT_EXIT, FAILURE_CLASS_LINES } from '../agent/agent-errors.js';
import { fetchAccessToken } from '../agent/fetch-access-token.js';
import { AccessTokenCache } from '../agent/token-cache.js';
import { runWrapper } from '../stdio-wrapper/run-wrapper.js';
import {
  openTokenFetch,
  parseScopeFlag,
  parseTokenFlags,
  supportedScopesOption,
  tokenRequestOptions,
  tokenTargetOptions,
} from './token-options.js';

/** Ours: replace the token once two minutes (of the five of docs/protocol.md#access-token) are left; retries then have two minutes. */
const WRAPPER_REFRESH_MARGIN_MS = 120_000;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const MAX_GRACE_PERIOD_S = 3_600;

const options = {
  ...tokenTargetOptions,
  scope: supportedScopesOption,
  'token-file': {
    type: 'string',
    valueName: 'PATH',
    defaultText: 'access-token in a new private directory (mode 0700) under the temp dir',
    description: 'Where the token is written (mode 0600, replaced atomically, removed on exit).',
  },
  'token-file-env': {
    type: 'string',
    valueName: 'VAR',
    default: 'MCP_ACCESS_TOKEN_FILE',
    description: "Environment variable that gives the child the token file's path.",
  },
  'export-token-env': {
    type: 'string',
    valueName: 'VAR',
    defaultText: 'off',
    description:
      'Also put the token itself in this variable of the child: visible in its environment, never refreshed.',
  },
  'grace-period': {
    type: 'string',
    valueName: 'SECONDS',
    default: '10',
    description: `How long the child gets between SIGTERM and SIGKILL when the wrapper stops it, 0 to ${MAX_GRACE_PERIOD_S}.`,
  },
  ...tokenRequestOptions,
} as const;

type WrapperOptions = typeof options;

export function mcpSvidStdioCommand(io: CommandIo = processIo): Command<WrapperOptions> {
  return {
    name: 'mcp-svid-stdio',
    usage: 'mcp-svid-stdio --resource URL --trusted-issuer URL [options] -- <command> [args…]',
    summary:
      'Runs a local stdio MCP server with an access token file kept fresh. Gets a token as notegate agent does,\n' +
      'writes it to the token file (0600, atomic replace, no newline), starts the command with inherited stdio\n' +
      `and the file's path in its environment, refreshes the token once ${WRAPPER_REFRESH_MARGIN_MS / 1000} s or less of it remain (retrying with\n` +
      "backoff), forwards SIGINT/SIGTERM/SIGHUP and exits with the command's exit code (128+n after signal n).\n" +
      'If the token expires without a refresh, the file is deleted and the command stopped (SIGTERM, then\n' +
      'SIGKILL after the grace period). Messages go to stderr; stdout belongs to the command.\n\n' +
      "Exit codes: the command's own once it ran (128+n after signal n). The wrapper's own, when the\n" +
      'command could not start or was stopped because the token expired (the class of the last error):\n' +
      [
        `${AGENT_EXIT.failure}  other failure (for example the token file could not be written)`,
        ...FAILURE_CLASS_LINES,
        '126  the command is not executable',
        '127  the command was not found',
      ]
        .map((line) => `  ${line}`)
        .join('\n'),
    options,
    acceptsRest: true,
    async run({ options: values, rest }) {
      const flags = parseWrapperFlags(values, rest);
      const tokens = openTokenFetch(flags.token, flags.scope);
      const cache = new AccessTokenCache({ reuseMarginMs: WRAPPER_REFRESH_MARGIN_MS });
      try {
        return await runWrapper({
          ...flags.wrapper,
          fetchToken: () => fetchAccessToken({ ...tokens.request, cache }),
          refreshMarginMs: WRAPPER_REFRESH_MARGIN_MS,
          env: process.env,
          log: operatorLog('mcp-svid-stdio', io),
        });
      } finally {
        tokens.close();
      }
    },
  };
}

function parseWrapperFlags(values: ParsedOptions<WrapperOptions>, rest: readonly string[]) {
  const token = parseTokenFlags(values, process.env);
  const [command, ...args] = rest;
  if (command === undefined || command === '') {
    throw new UsageError('no command: put the stdio MCP server to run after --');
  }
  const tokenFileEnv = envName('--token-file-env', values['token-file-env']);
  const exportTokenEnv =
    values['export-token-env'] === undefined ? undefined : envName('--export-token-env', values['export-token-env']);
  if (exportTokenEnv === tokenFileEnv) throw new UsageError('--export-token-env must differ from --token-file-env');
  return {
    token,
    scope: parseScopeFlag(values.scope),
    wrapper: {
      command,
      args,
      tokenFilePath: values['token-file'],
      tokenFileEnv,
      exportTokenEnv,
      gracePeriodMs: parseInteger('--grace-period', values['grace-period'], 0, MAX_GRACE_PERIOD_S) * 1000,
    },
  };
}

function envName(flag: string, value: string): string {
  if (!ENV_NAME.test(value)) throw new UsageError(`${flag}: '${value}' is not an environment variable name`);
  return value;
}
