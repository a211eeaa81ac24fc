import { errorMessage } from '@notegate/kit';
import type { Command, CommandLine } from '@notegate/kit/cli';
import {
  EXIT,
  listenAddressOf,
  operatorLog,
  packageVersion,
  parseHttpUrl,
  parseInteger,
  UsageError,
  untilShutdown,
} from '@notegate/kit/cli';
import { closeServer, listen } from '@notegate/kit/http';
import { parseServerLimits, serverLimitOptions } from '@notegate/kit/server-options';
import { NOTES_VAULT_OPTIONS, openNotesEngine, readVaultFlags } from '@notegate/rag';
import { openAuditLog } from '../audit/audit-log.js';
import { DEFAULT_MAX_TOKEN_LIFETIME_S } from '../mcp-server/bearer/claim-checks.js';
import { resourceIdentity } from '../mcp-server/http/resource-identity.js';
import type { NotesServer } from '../mcp-server/notes-server.js';
import { createNotesServer } from '../mcp-server/notes-server.js';
import { NotesServerMetrics } from '../metrics/notes-server-metrics.js';
import { requireIssuerForm } from '../oauth/identifier.js';
import { METRICS_OPTIONS, parseMetricsAddress, startMetricsListener } from './metrics-option.js';

/** Ours: a day, the bound of authz's --max-svid-lifetime. */
const MAX_TOKEN_LIFETIME_LIMIT_S = 86_400;

const options = {
  name: {
    type: 'string',
    valueName: 'NAME',
    default: 'notes',
    description: 'Server name: audit lines say component mcp_server:NAME. Letters, digits, . _ -.',
  },
  resource: {
    type: 'string',
    valueName: 'URL',
    required: true,
    description: 'Canonical resource URI, e.g. http://127.0.0.1:8081/mcp; its path is the MCP endpoint.',
  },
  issuer: {
    type: 'string',
    valueName: 'URL',
    required: true,
    description: 'Trusted authorization server issuer; tokens must carry exactly this iss.',
  },
  'jwks-uri': {
    type: 'string',
    valueName: 'URL',
    required: true,
    description: 'The only place the issuer key set is fetched from.',
  },
  ...NOTES_VAULT_OPTIONS,
  host: { type: 'string', valueName: 'HOST', defaultText: 'the host of --resource', description: 'Bind address.' },
  port: {
    type: 'string',
    valueName: 'PORT',
    defaultText: 'the port of --resource',
    description: 'Bind port; 0 picks a free one.',
  },
  'audit-log': {
    type: 'string',
    valueName: 'FILE',
    defaultText: 'stderr',
    description: 'Append one JSON audit line per decision to FILE.',
  },
  'max-token-lifetime': {
    type: 'string',
    valueName: 'SECONDS',
    default: String(DEFAULT_MAX_TOKEN_LIFETIME_S),
    description: `Refuse access tokens whose exp - iat is longer, 1 to ${MAX_TOKEN_LIFETIME_LIMIT_S}.`,
  },
  ...METRICS_OPTIONS,
  ...serverLimitOptions,
} as const;

type NotesServerOptions = typeof options;

const SERVER_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export const notesServerCommand: Command<NotesServerOptions> = {
  name: 'notegate notes-server',
  usage: 'notegate notes-server --resource URL --issuer URL --jwks-uri URL [options]',
  summary:
    'Protected MCP notes server (Streamable HTTP, revisions 2026-07-28 and 2025-11-25, stateless).\n' +
    'Tools notes.search (scope notes:read) and notes.write (scope notes:write) over the vaults of a\n' +
    'notegate-rag config (or one --notes-dir), searched in-process; RFC 9728 metadata at\n' +
    '/.well-known/oauth-protected-resource<resource path>. Prints "listening on <endpoint URL>" once ready.\n' +
    'The key set of --jwks-uri is trusted for 60 s; SIGHUP fetches it again at once.',
  options,
  run: async (line: CommandLine<NotesServerOptions>) => {
    const flags = readOptions(line);
    const { name, resource, endpointPath, issuer, jwksUri, host, port, auditPath, metricsAddress } = flags;
    const { limits, maxTokenLifetimeS, vaults } = flags;
    const log = operatorLog('notes-server');
    const { audit, close: closeAudit } = openAuditLog(auditPath);
    const metrics = new NotesServerMetrics();
    const engine = await openNotesEngine(vaults, process.cwd(), log);
    log(
      `serving vault${vaults.vaultIds.length === 1 ? '' : 's'} ${vaults.vaultIds.join(', ')} (writes go to ${vaults.writeVaultId}; index ${vaults.config.indexPath})`,
    );
    const notes = await createNotesServer({
      name,
      resource,
      issuer,
      jwksUri,
      engine,
      audit,
      metrics,
      limits,
      maxTokenLifetimeS,
      onFault: (tool, err) => log(`tool ${tool} failed: ${String(err)}`),
    });
    const metricsServer = await startMetricsListener(metrics, metricsAddress, log);
    const base = await listen(notes.server, host, port).catch(async (err: NodeJS.ErrnoException) => {
      await metricsServer?.close();
      await notes.close();
      throw new UsageError(`--host/--port: cannot listen on ${host}:${port} (${err.code ?? err.message})`);
    });
    const onHangUp = () => refetchKeySet(notes, jwksUri, log);
    process.on('SIGHUP', onHangUp);
    process.stdout.write(`listening on ${new URL(endpointPath, base).href.replace(/\/$/, '')}\n`);
    log(`version ${packageVersion(import.meta.url)}`);
    // No request may reach a closed engine: the listener goes first.
    await untilShutdown(async () => {
      process.off('SIGHUP', onHangUp);
      await closeServer(notes.server);
      await metricsServer?.close();
      await notes.close();
      closeAudit();
    });
    return EXIT.ok;
  },
};

/** docs/protocol.md#key-rotation: SIGHUP makes the server distrust its key set and fetch it again now. */
function refetchKeySet(notes: NotesServer, jwksUri: string, log: (message: string) => void): void {
  log(`SIGHUP: fetching the key set from ${jwksUri} again; tokens wait for it`);
  notes.refetchKeySet().then(
    (kids) => log(`key set refetched: ${kids.length === 0 ? 'no keys' : `kids ${kids.join(', ')}`}`),
    (err: unknown) => log(`key set refetch failed: ${errorMessage(err)}; tokens are refused until a fetch succeeds`),
  );
}

function readOptions(line: CommandLine<NotesServerOptions>) {
  const { options: o } = line;
  if (!SERVER_NAME.test(o.name)) {
    throw new UsageError(`--name: '${o.name}' is not allowed (1 to 64 of letters, digits, '.', '_', '-')`);
  }
  const resourceUrl = parseHttpUrl('--resource', o.resource);
  const identity = resourceIdentity(o.resource);
  parseHttpUrl('--issuer', o.issuer);
  requireIssuerForm(o.issuer, '--issuer');
  parseHttpUrl('--jwks-uri', o['jwks-uri']);
  return {
    name: o.name,
    resource: identity.resource,
    endpointPath: identity.endpointPath,
    issuer: o.issuer,
    jwksUri: o['jwks-uri'],
    vaults: readVaultFlags(o, process.cwd()),
    ...listenAddressOf(resourceUrl, o.host, o.port),
    auditPath: o['audit-log'],
    metricsAddress: parseMetricsAddress(o),
    limits: parseServerLimits(o),
    maxTokenLifetimeS: parseInteger('--max-token-lifetime', o['max-token-lifetime'], 1, MAX_TOKEN_LIFETIME_LIMIT_S),
  };
}
