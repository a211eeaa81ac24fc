import { errorMessage } from '@notegate/kit';
import type { Command, CommandIo, ParsedOptions } from '@notegate/kit/cli';
import {
  EXIT,
  listenAddressOf,
  parseChoice,
  parseHttpUrl,
  parseInteger,
  processIo,
  UsageError,
  untilShutdown,
} from '@notegate/kit/cli';
import { parseServerLimits, serverLimitOptions } from '@notegate/kit/server-options';
import { openAuditLog } from '../audit/audit-log.js';
import { startAuthz } from '../authz/authz-server.js';
import { REPLAY_MODES } from '../authz/check-replay.js';
import { DEFAULT_MAX_SVID_LIFETIME_S } from '../authz/check-svid-lifetime.js';
import { loadPolicyFile } from '../policy/policy-file.js';
import { openBundleSource } from './bundle-source-option.js';

/** Ours: a day, as the identity provider's TTL bound; the default (300 s, docs/protocol.md#limits) is SPIRE's JWT-SVID TTL. */
const MAX_SVID_LIFETIME_LIMIT_S = 86_400;

const options = {
  issuer: {
    type: 'string',
    valueName: 'URL',
    required: true,
    description: 'Issuer URI, used exactly as given for the metadata, the assertion aud check and the token iss.',
  },
  policy: {
    type: 'string',
    valueName: 'FILE',
    required: true,
    description: 'Policy file (YAML: trust_domain, grants: [{spiffe_id, resources: [{resource, scopes}]}]).',
  },
  'jwt-bundle': {
    type: 'string',
    valueName: 'FILE',
    defaultText: 'none; the Workload API is used',
    description: 'Static JWT bundle (SPIFFE bundle or JWKS) of the policy trust domain, re-read when it changes.',
  },
  'workload-api': {
    type: 'string',
    valueName: 'ADDR',
    defaultText: 'SPIFFE_ENDPOINT_SOCKET',
    description: 'Workload API endpoint (unix:///path or tcp://IP:PORT) streaming the JWT bundles.',
  },
  host: {
    type: 'string',
    valueName: 'HOST',
    defaultText: 'the host of --issuer',
    description: 'Address to bind.',
  },
  port: {
    type: 'string',
    valueName: 'PORT',
    defaultText: 'the port of --issuer',
    description: 'Port to bind; 0 picks a free one.',
  },
  'max-svid-lifetime': {
    type: 'string',
    valueName: 'SECONDS',
    default: String(DEFAULT_MAX_SVID_LIFETIME_S),
    description: `Largest exp - iat of a client assertion, 1 to ${MAX_SVID_LIFETIME_LIMIT_S}.`,
  },
  'svid-replay': {
    type: 'string',
    valueName: REPLAY_MODES.join('|'),
    default: 'reject',
    description:
      'reject: every SVID (sub, jti) works once, jti required; allow-reuse-within-lifetime: reuse is audited.',
  },
  'audit-log': {
    type: 'string',
    valueName: 'FILE',
    defaultText: 'stderr',
    description: 'File the audit lines are appended to.',
  },
  ...serverLimitOptions,
} as const;

export function authzCommand(io: CommandIo = processIo): Command<typeof options> {
  return {
    name: 'notegate authz',
    usage: 'notegate authz --issuer URL --policy FILE [--jwt-bundle FILE | --workload-api ADDR] [options]',
    summary:
      'Token service: takes a JWT-SVID client assertion (client_credentials grant) and returns an ES256\n' +
      'access token bound to one resource. Serves /.well-known/oauth-authorization-server, /jwks.json and\n' +
      '/token. Until the first JWT bundle arrives from the Workload API, token requests get 503.',
    options,
    async run({ options: values }) {
      const { issuer, host, port, maxSvidLifetimeS, replayMode, limits } = parseFlags(values);
      const policy = await loadPolicyFile(values.policy);
      const log = (message: string) => io.stderr(`authz: ${message}\n`);
      const { audit, close: closeAudit } = openAuditLog(values['audit-log']);
      const bundles = await openBundleSource({
        jwtBundle: values['jwt-bundle'],
        workloadApi: values['workload-api'],
        endpointSocketEnv: process.env.SPIFFE_ENDPOINT_SOCKET,
        trustDomain: policy.trustDomain,
        onEvent: log,
      }).catch((err: unknown) => {
        closeAudit();
        throw err;
      });
      const closeSources = async () => {
        await bundles.close();
        closeAudit();
      };
      const options = { issuer, policy, bundles, replayMode, maxSvidLifetimeS, audit, host, port, limits };
      const authz = await startAuthz(options).catch(async (err: unknown) => {
        await closeSources();
        throw new UsageError(`cannot listen on ${host}:${port}: ${errorMessage(err)}`);
      });
      // Handlers first: a supervisor may send SIGTERM as soon as it reads the line.
      const stopped = untilShutdown(async () => {
        await authz.close();
        await closeSources();
      });
      io.stdout(`listening on ${authz.url.href.replace(/\/$/, '')}\n`);
      await stopped;
      return EXIT.ok;
    },
  };
}

type Values = ParsedOptions<typeof options>;

/** The flags that need no I/O, validated before anything is opened. */
function parseFlags(values: Values) {
  return {
    issuer: values.issuer,
    ...listenAddressOf(parseIssuer(values.issuer), values.host, values.port),
    maxSvidLifetimeS: parseInteger('--max-svid-lifetime', values['max-svid-lifetime'], 1, MAX_SVID_LIFETIME_LIMIT_S),
    replayMode: parseChoice('--svid-replay', values['svid-replay'], REPLAY_MODES),
    limits: parseServerLimits(values),
  };
}

/** RFC 8414 §2: an issuer has no query or fragment; it is also quoted in WWW-Authenticate, so printable ASCII only. */
function parseIssuer(value: string): URL {
  const url = parseHttpUrl('--issuer', value);
  if (url.search || value.includes('?')) throw new UsageError(`--issuer: '${value}' must not have a query`);
  if (!/^[\x21-\x7e]+$/.test(value))
    throw new UsageError(`--issuer: '${value}' must be printable ASCII without spaces`);
  return url;
}
