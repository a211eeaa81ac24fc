import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { closeServer, listen, reservePort } from '@notegate/kit/http';
import { AuditLog } from '../../src/audit/audit-log.js';
import { createNotesServer, type NotesServer, type NotesServerConfig } from '../../src/mcp-server/notes-server.js';
import { TestAccessTokenIssuer } from './access-token-issuer.js';
import { ManualClock } from './manual-clock.js';
import { openFolderEngine } from './test-engine.js';

export interface AuditEntry {
  readonly timestamp: string;
  readonly component: string;
  readonly spiffe_id: string | null;
  readonly tool: string | null;
  readonly decision: 'allow' | 'deny';
  readonly reason: string;
  readonly [extra: string]: unknown;
}

export interface NotesServerFixture {
  /** The MCP endpoint as bound (equal to the resource URI). */
  readonly endpoint: string;
  readonly base: URL;
  readonly issuer: TestAccessTokenIssuer;
  readonly clock: ManualClock;
  readonly notes: NotesServer;
  readonly notesDir: string;
  readonly auditLines: string[];
  audit(): AuditEntry[];
  lastAudit(): AuditEntry;
}

export type FixtureOptions = Partial<
  Pick<NotesServerConfig, 'cacheVerifiedTokens' | 'tools' | 'onFault' | 'fetch' | 'limits' | 'maxTokenLifetimeS'>
> & {
  /** Use the real clock (SDK clients and tokens then agree with wall time). */
  readonly realClock?: boolean;
  readonly notesDir?: string;
};

/** A notes server on a loopback port with its resource URI naming that port, a test issuer and a captured audit log. */
export async function startNotesServer(t: TestContext, options: FixtureOptions = {}): Promise<NotesServerFixture> {
  const clock = new ManualClock();
  const now = options.realClock ? Date.now : clock.now;
  const port = await reservePort();
  const endpoint = `http://127.0.0.1:${port}/mcp`;
  const issuer = await TestAccessTokenIssuer.start(endpoint, now);
  t.after(() => issuer.close());
  const notesDir = options.notesDir ?? mkdtempSync(join(tmpdir(), 'notes-server-'));
  if (!options.notesDir) t.after(() => rmSync(notesDir, { recursive: true, force: true }));
  const auditLines: string[] = [];
  const notes = await createNotesServer({
    name: 'test',
    resource: endpoint,
    issuer: issuer.issuer,
    jwksUri: issuer.jwksUri,
    engine: await openFolderEngine(notesDir),
    audit: new AuditLog((line) => auditLines.push(line), { clock: now }),
    clock: now,
    ...options,
  });
  const base = await listen(notes.server, '127.0.0.1', port);
  t.after(async () => {
    await notes.close();
    await closeServer(notes.server);
  });
  const audit = () => auditLines.map((line) => JSON.parse(line) as AuditEntry);
  return {
    endpoint,
    base,
    issuer,
    clock,
    notes,
    notesDir,
    auditLines,
    audit,
    lastAudit: () => {
      const entries = audit();
      const last = entries[entries.length - 1];
      if (!last) throw new Error('no audit line written');
      return last;
    },
  };
}

/** Headers of a well-formed 2025-11-25 POST. */
export function mcpHeaders(token?: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2025-11-25',
    ...(token !== undefined && { authorization: `Bearer ${token}` }),
    ...extra,
  };
}

/** Headers of a well-formed 2026-07-28 POST: the method, and the tool of a tools/call, named in headers too. */
export function modernHeaders(
  token: string | undefined,
  method: string,
  tool?: string,
  extra: Record<string, string> = {},
): Record<string, string> {
  return mcpHeaders(token, {
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': method,
    ...(tool !== undefined && { 'mcp-name': tool }),
    ...extra,
  });
}

/** A 2026-07-28 tools/call body: the revision and client capabilities travel in `_meta`. */
export function modernToolCall(name: string, args: unknown, id: number | string = 1): string {
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'raw-test', version: '1.0.0' },
  };
  return JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args, _meta: meta } });
}

export function toolCall(name: string, args: unknown, id: number | string = 1): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
}

export function rpc(method: string, id: number | string = 1, params: unknown = {}): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method, params });
}

export function notification(method: string, params: unknown = {}): string {
  return JSON.stringify({ jsonrpc: '2.0', method, params });
}

/** Parses a Bearer challenge into its auth-params. */
export function challengeParams(header: string | null): Record<string, string> {
  if (header === null || !header.startsWith('Bearer ')) throw new Error(`not a Bearer challenge: ${header}`);
  const params: Record<string, string> = {};
  for (const match of header.slice('Bearer '.length).matchAll(/([a-z_]+)="([^"]*)"/g)) {
    const [, name, value] = match;
    if (name !== undefined && value !== undefined) params[name] = value;
  }
  return params;
}
