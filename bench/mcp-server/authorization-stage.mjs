// The authorization stage of the notes server measured in-process, step for step as the endpoint runs
// it (bearer extraction, token verification, tool scope, granted-tool list, audit line to a file): its
// CPU cost per request barely depends on what else runs on the machine, unlike end-to-end req/s.
import { AuditLog, fileSink } from '../../auth/dist/src/audit/audit-log.js';
import { DEFAULT_MAX_TOKEN_LIFETIME_S } from '../../auth/dist/src/mcp-server/bearer/claim-checks.js';
import { extractBearerToken } from '../../auth/dist/src/mcp-server/bearer/extract-bearer-token.js';
import { checkToolScope } from '../../auth/dist/src/mcp-server/bearer/scope-check.js';
import { VerifiedTokenCache } from '../../auth/dist/src/mcp-server/bearer/verified-token-cache.js';
import { createAccessTokenVerifier } from '../../auth/dist/src/mcp-server/bearer/verify-access-token.js';
import { DecisionAudit, newTrail } from '../../auth/dist/src/mcp-server/http/decision-audit.js';
import { fetchKeySet } from '../../auth/dist/src/mcp-server/keys/fetch-key-set.js';
import { KeySetCache } from '../../auth/dist/src/mcp-server/keys/key-set-cache.js';
import { NotesStore } from '../../auth/dist/src/mcp-server/notes/notes-store.js';
import { notesTools } from '../../auth/dist/src/mcp-server/tools/notes-tools.js';
import { ToolCatalog } from '../../auth/dist/src/mcp-server/tools/tool-catalog.js';

const BATCH = 2_000;
const BATCHES = 15;

/** Median µs of CPU per authorized request, with the verified-token cache and without it. */
export async function authorizationStageCost({ issuer, resource, notesDir, auditFile }) {
  const catalog = ToolCatalog.create(notesTools(await NotesStore.open(notesDir), () => undefined));
  const audit = fileSink(auditFile);
  const decisions = new DecisionAudit(new AuditLog(audit.sink), 'bench');
  const stage = (cache) => {
    const keys = new KeySetCache({ fetchKeySet: () => fetchKeySet(issuer.jwksUri, fetch), clock: Date.now });
    const verify = createAccessTokenVerifier({
      issuer: issuer.issuer,
      resource,
      keys,
      clock: Date.now,
      maxLifetimeS: DEFAULT_MAX_TOKEN_LIFETIME_S,
      ...(cache && { cache }),
    });
    return async (authorization) => {
      const trail = newTrail(authorization);
      trail.method = 'tools/call';
      trail.tool = 'notes.search';
      const tool = catalog.get('notes.search');
      trail.scope = tool.scope;
      const claims = await verify(extractBearerToken(authorization));
      checkToolScope(claims, tool.scope);
      catalog.toolsGrantedBy(claims.scopes);
      decisions.allow(trail, claims, 200);
    };
  };
  const authorization = `Bearer ${await issuer.sign({ claims: { aud: resource } })}`;
  const variants = { cached: stage(new VerifiedTokenCache()), uncached: stage(undefined) };
  const samples = { cached: [], uncached: [] };
  for (const run of Object.values(variants)) for (let i = 0; i < BATCH; i++) await run(authorization);
  for (let batch = 0; batch < BATCHES; batch++) {
    for (const [name, run] of Object.entries(variants)) {
      const before = process.cpuUsage();
      for (let i = 0; i < BATCH; i++) await run(authorization);
      const used = process.cpuUsage(before);
      samples[name].push((used.user + used.system) / BATCH);
    }
  }
  audit.close();
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  return { cachedUs: median(samples.cached), uncachedUs: median(samples.uncached) };
}
