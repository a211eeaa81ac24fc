import type { FetchLike } from '@modelcontextprotocol/client';
import type { ParsedOptions } from '@notegate/kit/cli';
import { parseInteger } from '@notegate/kit/cli';
import { type FetchAccessTokenOptions, requireScope } from '../agent/fetch-access-token.js';
import { IssuerAllowlist } from '../agent/issuer-allowlist.js';
import { type AuditLog, openAuditLog } from '../audit/audit-log.js';
import { requireResourceForm } from '../oauth/identifier.js';
import type { WorkloadApiAddress } from '../spiffe/workload-api/address.js';
import { resolveWorkloadApiAddress } from '../spiffe/workload-api/address.js';
import { WorkloadApiClient } from '../spiffe/workload-api/client.js';

/** The options every token-fetching command shares: which token, from where (docs/protocol.md#agent-notegate-agent). */
export const tokenTargetOptions = {
  resource: {
    type: 'string',
    valueName: 'URL',
    required: true,
    description: 'Resource URI of the MCP server, e.g. http://127.0.0.1:8081/mcp (no query or fragment).',
  },
  'trusted-issuer': {
    type: 'string',
    multiple: true,
    valueName: 'URL',
    required: true,
    description:
      'Authorization server issuer the agent may use; the first advertised issuer on this list is taken. ' +
      'Compared exactly after lowercasing scheme and host, dropping the default port and mapping an empty path to /.',
  },
  'workload-api': {
    type: 'string',
    valueName: 'ADDR',
    defaultText: 'SPIFFE_ENDPOINT_SOCKET',
    description: 'Workload API endpoint (unix:///path or tcp://IP:PORT) the JWT-SVID is fetched from.',
  },
} as const;

/** `--scope` where the default is MCP's: every scope the server lists (notegate proxy, notegate token, mcp-svid-stdio). */
export const supportedScopesOption = {
  type: 'string',
  valueName: '"A B"',
  defaultText: "every scope in the server's scopes_supported",
  description: 'Scopes to request, separated by single spaces.',
} as const;

/** The shared options on how the token is fetched, listed last in help. */
export const tokenRequestOptions = {
  timeout: {
    type: 'string',
    valueName: 'SECONDS',
    default: '10',
    description: 'Bound of each HTTP request (metadata, token, MCP), 1 to 300.',
  },
  'audit-log': {
    type: 'string',
    valueName: 'FILE',
    defaultText: 'stderr',
    description: 'File the agent audit lines (issuer trusted or issuer_refused) are appended to.',
  },
} as const;

const MAX_TIMEOUT_S = 300;

export interface TokenFlags {
  readonly resource: string;
  readonly trustedIssuers: readonly string[];
  readonly workloadApi: WorkloadApiAddress;
  readonly timeoutMs: number;
  readonly auditPath: string | undefined;
}

/** Validates the shared flags once, before anything is opened; every error names its flag. */
export function parseTokenFlags(
  values: ParsedOptions<typeof tokenTargetOptions & typeof tokenRequestOptions>,
  env: NodeJS.ProcessEnv,
): TokenFlags {
  const trustedIssuers = IssuerAllowlist.parse(values['trusted-issuer'], '--trusted-issuer').entries;
  return {
    // The resource form is also a spelling the server answers at (its endpoint is that path).
    resource: requireResourceForm(values.resource, '--resource'),
    trustedIssuers,
    workloadApi: resolveWorkloadApiAddress({
      explicit: values['workload-api'],
      explicitSource: '--workload-api',
      endpointSocketEnv: env.SPIFFE_ENDPOINT_SOCKET,
    }),
    timeoutMs: parseInteger('--timeout', values.timeout, 1, MAX_TIMEOUT_S) * 1000,
    auditPath: values['audit-log'],
  };
}

/** `--scope` as given, checked, naming the flag; absent, the token request asks for every scope the server lists. */
export function parseScopeFlag(scope: string | undefined): string | undefined {
  return scope === undefined ? undefined : requireScope(scope, '--scope');
}

/** What a command's token fetches use, opened once its flags are valid. */
export interface TokenFetch {
  readonly audit: AuditLog;
  /** The options of `fetchAccessToken` the flags give, with the audit log and a Workload API client. */
  readonly request: FetchAccessTokenOptions;
  /** Cuts off the token fetches still running, then closes the Workload API client and the audit log. */
  close(): void;
}

export function openTokenFetch(flags: TokenFlags, scope: string | undefined): TokenFetch {
  const { audit, close } = openAuditLog(flags.auditPath);
  const svidSource = new WorkloadApiClient({ address: flags.workloadApi });
  const { resource, trustedIssuers, timeoutMs } = flags;
  // A fetch still running when the command ends is cut off: a hung authz cannot hold the process.
  const closing = new AbortController();
  const fetchUntilClosed: FetchLike = (url, init) =>
    fetch(url, { ...init, signal: AbortSignal.any([closing.signal, ...(init?.signal ? [init.signal] : [])]) });
  return {
    audit,
    request: { resource, trustedIssuers, scope, timeoutMs, svidSource, audit, fetch: fetchUntilClosed },
    close() {
      closing.abort();
      svidSource.close();
      close();
    },
  };
}
