import { resolve } from 'node:path';
import { hostEntry, MCP_HOSTS } from '@notegate/kit';
import type { Command, CommandIo } from '@notegate/kit/cli';
import { EXIT, operatorLog, parseChoice, processIo, untilShutdown } from '@notegate/kit/cli';
import { fetchAccessToken } from '../agent/fetch-access-token.js';
import { proxyServerEntry } from '../proxy/host-entry.js';
import { PROXY_REFRESH_MARGIN_MS, runProxy } from '../proxy/run-proxy.js';
import {
  openTokenFetch,
  parseScopeFlag,
  parseTokenFlags,
  supportedScopesOption,
  tokenRequestOptions,
  tokenTargetOptions,
} from './token-options.js';

const options = {
  ...tokenTargetOptions,
  scope: supportedScopesOption,
  ...tokenRequestOptions,
  'audit-log': {
    ...tokenRequestOptions['audit-log'],
    description:
      'File the audit lines are appended to: the issuer decision of each token fetch, and a deny line for each failed one.',
  },
  'print-config': {
    type: 'string',
    valueName: 'HOST',
    description: `Print the entry for an MCP host's config file that starts this proxy with these flags, instead of running it (${MCP_HOSTS.join(', ')}).`,
  },
} as const;

type ProxyOptions = typeof options;

export function proxyCommand(io: CommandIo = processIo): Command<ProxyOptions> {
  return {
    name: 'notegate proxy',
    usage: 'notegate proxy --resource URL --trusted-issuer URL [options]',
    summary:
      'A stdio MCP server for any MCP host: relays every message unchanged to the protected Streamable HTTP\n' +
      'MCP server at --resource, with an access token from the same safe discovery as notegate agent\n' +
      '(resource metadata, the first allowlisted issuer, its metadata, a JWT-SVID, the token request).\n' +
      `The token is replaced once ${PROXY_REFRESH_MARGIN_MS / 1000} s or less of it remain, and once more after a 401. A failure to get a\n` +
      'token, a 403 insufficient_scope or an unreachable server is a JSON-RPC error to the client; a line\n' +
      'that is not JSON gets -32700. stdout carries only the protocol; messages go to stderr, audit lines to\n' +
      '--audit-log. Exits 0 once stdin is closed (in-flight answers get 3 s) or on SIGINT/SIGTERM.',
    options,
    async run({ options: values }) {
      const flags = parseTokenFlags(values, process.env);
      const scope = parseScopeFlag(values.scope);
      const host = values['print-config'];
      if (host !== undefined) {
        const { json, where } = hostEntry(
          parseChoice('--print-config', host, MCP_HOSTS),
          proxyServerEntry({
            resource: flags.resource,
            trustedIssuers: flags.trustedIssuers,
            workloadApi: flags.workloadApi.display,
            scope,
            timeoutS: values.timeout === options.timeout.default ? undefined : flags.timeoutMs / 1000,
            auditLog: flags.auditPath === undefined ? undefined : resolve(flags.auditPath),
          }),
        );
        io.stdout(json);
        io.stderr(`${where}\n`);
        return EXIT.ok;
      }
      const tokens = openTokenFetch(flags, scope);
      try {
        return await runProxy({
          resource: flags.resource,
          fetchToken: () => fetchAccessToken(tokens.request),
          refreshMarginMs: PROXY_REFRESH_MARGIN_MS,
          timeoutMs: flags.timeoutMs,
          input: process.stdin,
          output: process.stdout,
          log: operatorLog('notegate proxy', io),
          audit: tokens.audit,
          stopRequested: untilShutdown(() => undefined).then(() => 'stop requested'),
        });
      } finally {
        tokens.close();
      }
    },
  };
}
