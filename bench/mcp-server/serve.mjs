#!/usr/bin/env node
// One benchmark server variant in its own process (the authorized variant is the real CLI, see run.mjs).
//   node serve.mjs sdk-plain|noauth|auth-nocache PORT NOTES_DIR ISSUER JWKS_URI AUDIT_FILE
// Prints "listening on <endpoint>" like the CLI.
import { createServer } from 'node:http';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { listen, sendJson } from '@notegate/kit/http';
import { AuditLog, fileSink } from '../../auth/dist/src/audit/audit-log.js';
import { SdkDispatcher } from '../../auth/dist/src/mcp-server/http/sdk-dispatch.js';
import { abortOnDisconnect, toSdkRequest, writeWebResponse } from '../../auth/dist/src/mcp-server/http/web-bridge.js';
import { NotesStore } from '../../auth/dist/src/mcp-server/notes/notes-store.js';
import { createNotesServer } from '../../auth/dist/src/mcp-server/notes-server.js';
import { screenHeaders } from '../../auth/dist/src/mcp-server/request/header-screening.js';
import { readJsonBody } from '../../auth/dist/src/mcp-server/request/read-json-body.js';
import { parseRpcMessage, toolCallOf } from '../../auth/dist/src/mcp-server/request/rpc-message.js';
import { notesTools } from '../../auth/dist/src/mcp-server/tools/notes-tools.js';
import { ToolCatalog } from '../../auth/dist/src/mcp-server/tools/tool-catalog.js';

const [variant, portText, notesDir, issuer, jwksUri, auditFile] = process.argv.slice(2);
const port = Number(portText);
const resource = `http://127.0.0.1:${port}/mcp`;
const ignore = () => undefined;

async function sdkPlain() {
  // The SDK's documented wiring without any authorization: a fresh McpServer per request.
  const store = await NotesStore.open(notesDir);
  const tools = notesTools(store, ignore);
  const factory = () => {
    const server = new McpServer({ name: 'bench', version: '1' }, { capabilities: { tools: { listChanged: false } } });
    for (const tool of tools) tool.register(server);
    return server;
  };
  const handle = toNodeHandler(createMcpHandler(factory));
  return createServer((req, res) => void handle(req, res));
}

async function noAuth() {
  // The notes server's own pipeline (screening, pooled SDK dispatch) with the authorization steps removed.
  const store = await NotesStore.open(notesDir);
  const catalog = ToolCatalog.create(notesTools(store, ignore));
  const everything = catalog.toolsGrantedBy(new Set(catalog.scopesSupported));
  const dispatcher = new SdkDispatcher({ name: 'bench', version: '1' });
  return createServer(async (req, res) => {
    try {
      screenHeaders(req.headers, new URL(resource).origin);
      const body = await readJsonBody(req);
      const call = toolCallOf(parseRpcMessage(body));
      if (call && catalog.get(call.name)?.argumentProblem(call.arguments) !== undefined) throw new Error('bad args');
      const response = await dispatcher.dispatch(
        everything,
        toSdkRequest(resource, req.headers, abortOnDisconnect(res)),
        body,
      );
      await writeWebResponse(res, response);
    } catch (err) {
      sendJson(res, 400, { error: String(err) });
    }
  });
}

async function authNoCache() {
  const audit = fileSink(auditFile);
  const notes = await createNotesServer({
    name: 'bench',
    resource: new URL(resource),
    issuer,
    jwksUri,
    notesDir,
    audit: new AuditLog(audit.sink),
    cacheVerifiedTokens: false,
  });
  return notes.server;
}

const build = { 'sdk-plain': sdkPlain, noauth: noAuth, 'auth-nocache': authNoCache }[variant];
if (!build) throw new Error(`unknown variant ${variant}`);
const server = await build();
await listen(server, '127.0.0.1', port);
process.stdout.write(`listening on ${resource}\n`);
process.on('SIGTERM', () => process.exit(0));
