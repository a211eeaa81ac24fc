import { terminalJson, terminalText } from '@notegate/kit';
import type { Command, CommandIo } from '@notegate/kit/cli';
import { processIo } from '@notegate/kit/cli';
import { AGENT_EXIT, AgentError, FAILURE_CLASS_LINES } from '../agent/agent-errors.js';
import { fetchAccessToken } from '../agent/fetch-access-token.js';
import type { AccessToken } from '../agent/token-request.js';
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
  json: {
    type: 'boolean',
    description: 'Print {"access_token","expires_in","scope","issuer"} instead of the bare token.',
  },
  ...tokenRequestOptions,
} as const;

type TokenOptions = typeof options;

export function tokenCommand(io: CommandIo = processIo): Command<TokenOptions> {
  return {
    name: 'notegate token',
    usage: 'notegate token --resource URL --trusted-issuer URL [--scope "A B"] [--json] [options]',
    summary:
      "Runs the agent's discovery chain once (resource metadata, the first allowlisted issuer, its metadata,\n" +
      'a JWT-SVID, the token request) and prints the access token on stdout, for curl and scripts:\n' +
      '  curl -H "Authorization: Bearer $(notegate token --resource URL --trusted-issuer URL)" …\n' +
      'Failures: one line on stderr, "<step>: <reason>: <detail>".\n\nExit codes:\n' +
      [`${AGENT_EXIT.ok}  the token was printed`, ...FAILURE_CLASS_LINES].map((line) => `  ${line}`).join('\n'),
    options,
    async run({ options: values }) {
      const tokens = openTokenFetch(parseTokenFlags(values, process.env), parseScopeFlag(values.scope));
      try {
        const token = await fetchAccessToken(tokens.request);
        // The token is the server's text: a valid one (RFC 6749 §A.12) is printable ASCII and unchanged.
        io.stdout(
          values.json ? `${terminalJson(tokenJson(token, Date.now()))}\n` : `${terminalText(token.accessToken)}\n`,
        );
        return AGENT_EXIT.ok;
      } catch (err) {
        if (!(err instanceof AgentError)) throw err;
        io.stderr(`notegate token: ${terminalText(err.message)}\n`);
        return err.exitCode;
      } finally {
        tokens.close();
      }
    },
  };
}

/** RFC 6749 §5.1 names; expires_in counts from now, so it is never more than the token has left. */
function tokenJson(token: AccessToken, nowMs: number) {
  return {
    access_token: token.accessToken,
    expires_in: Math.max(0, Math.floor((token.expiresAt.getTime() - nowMs) / 1000)),
    scope: token.scope,
    issuer: token.issuer,
  };
}
