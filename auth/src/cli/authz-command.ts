import { errorMessage } from '@notegate/kit';
import type { Command, ParsedOptions } from '@notegate/kit/cli';
import {
  EXIT,
  listenAddressOf,
  operatorLog,
  packageVersion,
  parseChoice,
  parseHttpUrl,
  parseInteger,
  processIo,
  UsageError,
  untilShutdown,
} from '@notegate/kit/cli';
import { parseServerLimits, serverLimitOptions } from '@notegate/kit/server-options';
import { openAuditLog } from '../audit/audit-log.js';
import type { RunningAuthz } from '../authz/authz-server.js';
import { startAuthz } from '../authz/authz-server.js';
import { REPLAY_MODES } from '../authz/check-replay.js';
import { DEFAULT_MAX_SVID_LIFETIME_S } from '../authz/check-svid-lifetime.js';
import { observedReplayStore } from '../authz/replay/observed-replay-store.js';
import { REDIS_REPLAY_CAPACITY } from '../authz/replay/redis-replay-store.js';
import { REPLAY_CACHE_CAPACITY } from '../authz/replay/replay-cache.js';
import { openSigningKeyFile, type SigningKeyFile } from '../authz/signing/signing-key-file.js';
import { AuthzMetrics } from '../metrics/authz-metrics.js';
import { requireIssuerForm } from '../oauth/identifier.js';
import { openPolicyFile } from '../policy/policy-source.js';
import { openBundleSource } from './bundle-source-option.js';
import { METRICS_OPTIONS, parseMetricsAddress, startMetricsListener } from './metrics-option.js';
import type { ReplayStoreChoice } from './replay-store-option.js';
import {
  openReplayStore,
  parseReplayCapacity,
  parseReplayStore,
  REDIS_PASSWORD_ENV,
  readRedisPassword,
} from './replay-store-option.js';

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
  'replay-store': {
    type: 'string',
    valueName: 'STORE',
    default: 'memory',
    description:
      'Where used assertions are recorded: memory (this process), or redis://HOST[:PORT][/DB] or rediss://… (Redis or Valkey shared by replicas).',
  },
  'replay-store-password-file': {
    type: 'string',
    valueName: 'FILE',
    defaultText: `none; else ${REDIS_PASSWORD_ENV}`,
    description:
      'File holding the password of the Redis replay store (one line), read at start; keeps it out of ps, unlike a password in the URL.',
  },
  'replay-capacity': {
    type: 'string',
    valueName: 'N',
    defaultText: `${REPLAY_CACHE_CAPACITY} with memory, ${REDIS_REPLAY_CAPACITY} with Redis`,
    description: 'Live entries the replay store may hold; beyond, new assertions get 503.',
  },
  'signing-keys': {
    type: 'string',
    valueName: 'FILE',
    defaultText: 'none; one key generated in memory at start',
    description: 'JWK Set of private P-256 keys with kids: the first signs, all are published; re-read on change.',
  },
  ...METRICS_OPTIONS,
  ...serverLimitOptions,
} as const;

export function authzCommand(): Command<typeof options> {
  return {
    name: 'notegate authz',
    usage: 'notegate authz --issuer URL --policy FILE [--jwt-bundle FILE | --workload-api ADDR] [options]',
    summary:
      'Token service: takes a JWT-SVID client assertion (client_credentials grant) and returns an ES256\n' +
      'access token bound to one resource. Serves /.well-known/oauth-authorization-server, /jwks.json and\n' +
      '/token. Until the first JWT bundle arrives from the Workload API, token requests get 503. The policy\n' +
      'is reloaded on SIGHUP and when its file changes; notegate authz check-policy FILE checks one without\n' +
      'starting. Key files: notegate authz keygen --help.',
    options,
    async run({ options: values }) {
      const flags = parseFlags(values);
      const log = operatorLog('authz');
      const metrics = new AuthzMetrics();
      const closers: Array<() => unknown> = [];
      const closeAll = async () => {
        for (const close of closers.splice(0).reverse()) await close();
      };
      try {
        const authz = await openService(flags, values, { log, metrics, closers });
        // Handlers first: a supervisor may send SIGTERM as soon as it reads the line.
        const stopped = untilShutdown(closeAll);
        processIo.stdout(`listening on ${authz.url.href.replace(/\/$/, '')}\n`);
        log(`version ${packageVersion(import.meta.url)}`);
        await stopped;
        return EXIT.ok;
      } catch (err) {
        await closeAll();
        throw err;
      }
    },
  };
}

interface Wiring {
  readonly log: (message: string) => void;
  readonly metrics: AuthzMetrics;
  /** What to close on shutdown, in the order opened (closed in reverse). */
  readonly closers: Array<() => unknown>;
}

/** Opens the sources and stores, then the listeners; everything opened is in `closers` even when a later step fails. */
async function openService(flags: Flags, values: Values, { log, metrics, closers }: Wiring): Promise<RunningAuthz> {
  const policy = await openPolicyFile({
    path: values.policy,
    onEvent: log,
    onReload: (result) => metrics.reload('policy', result),
  });
  closers.push(() => policy.close());
  const onHangUp = () => {
    log('SIGHUP: reading the policy file again');
    policy.reload();
  };
  process.on('SIGHUP', onHangUp);
  closers.push(() => process.off('SIGHUP', onHangUp));
  const { audit, close: closeAudit } = openAuditLog(values['audit-log']);
  closers.push(closeAudit);
  const bundles = await openBundleSource({
    jwtBundle: values['jwt-bundle'],
    workloadApi: values['workload-api'],
    endpointSocketEnv: process.env.SPIFFE_ENDPOINT_SOCKET,
    trustDomain: policy.current().trustDomain,
    onEvent: log,
  });
  closers.push(() => bundles.close());
  const signingKeys = await openSigningKeys(values['signing-keys'], log, metrics);
  if (signingKeys) closers.push(() => signingKeys.close());
  if (flags.replayStore.kind === 'redis' && flags.replayStore.passwordFrom === 'url') {
    log(
      `the password in --replay-store is visible to every local user (ps); give it with --replay-store-password-file or ${REDIS_PASSWORD_ENV}`,
    );
  }
  const store = await openReplayStore(flags.replayStore, {
    capacity: flags.replayCapacity,
    namespace: flags.issuer,
    requireNoEviction: flags.replayMode === 'reject',
    onEvent: log,
  });
  closers.push(() => store.close());
  const replayStore = observedReplayStore(store, metrics.replayStore(store));
  const metricsServer = await startMetricsListener(metrics, flags.metrics, log);
  if (metricsServer) closers.push(() => metricsServer.close());
  const { issuer, host, port, maxSvidLifetimeS, replayMode, limits } = flags;
  const authz = await startAuthz({
    ...{ issuer, host, port, maxSvidLifetimeS, replayMode, policy, bundles, audit, replayStore, metrics, limits },
    ...(signingKeys ? { signingKeys } : {}),
  }).catch((err: unknown) => {
    throw new UsageError(`cannot listen on ${host}:${port}: ${errorMessage(err)}`);
  });
  closers.push(() => authz.close());
  return authz;
}

async function openSigningKeys(
  path: string | undefined,
  log: (message: string) => void,
  metrics: AuthzMetrics,
): Promise<SigningKeyFile | undefined> {
  if (path === undefined) return undefined;
  return openSigningKeyFile({
    path,
    onEvent: log,
    onReload: (result) => metrics.reload('signing_keys', result),
  }).catch((err: unknown) => {
    // An unreadable file's error names the flag already; a refused one names the entry.
    throw err instanceof UsageError ? err : new UsageError(`--signing-keys ${path}: ${errorMessage(err)}`);
  });
}

type Values = ParsedOptions<typeof options>;

type Flags = ReturnType<typeof parseFlags>;

/** The flags, validated before anything is opened (the only I/O: the Redis password file). */
function parseFlags(values: Values) {
  const replayStore = parseStoreFlags(values);
  return {
    issuer: values.issuer,
    ...listenAddressOf(parseIssuer(values.issuer), values.host, values.port),
    maxSvidLifetimeS: parseInteger('--max-svid-lifetime', values['max-svid-lifetime'], 1, MAX_SVID_LIFETIME_LIMIT_S),
    replayMode: parseChoice('--svid-replay', values['svid-replay'], REPLAY_MODES),
    replayStore,
    replayCapacity: parseReplayCapacity('--replay-capacity', values['replay-capacity'], replayStore),
    metrics: parseMetricsAddress(values),
    limits: parseServerLimits(values),
  };
}

/**
 * `--replay-store` and its password (docs/protocol.md#replay-store). The password file is the one read
 * done here: a small file, at start, so that a flag naming a file that cannot be read is told at once.
 */
function parseStoreFlags(values: Values): ReplayStoreChoice {
  const passwordFile = values['replay-store-password-file'];
  if (values['replay-store'] === 'memory' && passwordFile !== undefined) {
    throw new UsageError('--replay-store-password-file: only a Redis --replay-store has a password');
  }
  const password = readRedisPassword('--replay-store-password-file', passwordFile, process.env[REDIS_PASSWORD_ENV]);
  return parseReplayStore('--replay-store', values['replay-store'], password);
}

/**
 * RFC 8414 §2: an issuer has no query or fragment; it is also quoted in WWW-Authenticate, so printable
 * ASCII only: the issuer form's rules (docs/protocol.md#identifiers). Used as given, never reformed.
 */
function parseIssuer(value: string): URL {
  const url = parseHttpUrl('--issuer', value);
  requireIssuerForm(value, '--issuer');
  return url;
}
