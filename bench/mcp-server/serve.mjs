#!/usr/bin/env node
// One benchmark server variant in its own process (the authorized variant is the real CLI, see run.mjs).
//   node serve.mjs sdk-plain|noauth PORT VAULTS_CONFIG
// Both search the same index through the same engine as `notegate notes-server --vaults-config`.
// Prints "listening on <endpoint>" like the CLI.
import { createServer } from 'node:http';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { listen, sendJson } from '@notegate/kit/http';
import { SdkDispatcher } from '../../auth/dist/src/mcp-server/http/sdk-dispatch.js';
import { abortOnDisconnect, toSdkRequest, writeWebResponse } from '../../auth/dist/src/mcp-server/http/web-bridge.js';
import { screenHeaders } from '../../auth/dist/src/mcp-server/request/header-screening.js';
import { readJsonBody } from '../../auth/dist/src/mcp-server/request/read-json-body.js';
import { parseRpcMessage, toolCallOf } from '../../auth/dist/src/mcp-server/request/rpc-message.js';
import { notesTools } from '../../auth/dist/src/mcp-server/tools/notes-tools.js';
import { ToolCatalog } from '../../auth/dist/src/mcp-server/tools/tool-catalog.js';
import { openBenchEngine } from './bench-engine.mjs';

const [variant, portText, configFile] = process.argv.slice(2);
const port = Number(portText);
const resource = `http://127.0.0.1:${port}/mcp`;
const ignore = () => undefined;

async function sdkPlain(engine) {
  // The SDK's documented stateless wiring without any authorization: a fresh McpServer per request.
  const tools = notesTools(engine, ignore);
  const factory = () => {
    const server = new McpServer({ name: 'bench', version: '1' }, { capabilities: { tools: { listChanged: false } } });
    for (const tool of tools) tool.register(server);
    return server;
  };
  const handle = toNodeHandler(createMcpHandler(factory));
  return createServer((req, res) => void handle(req, res));
}

async function noAuth(engine) {
  // The notes server's own pipeline (screening, prepared SDK instances) with the authorization steps removed.
  const catalog = ToolCatalog.create(notesTools(engine, ignore));
  const everything = catalog.toolsGrantedBy(new Set(catalog.scopesSupported));
  const dispatcher = new SdkDispatcher({ name: 'bench', version: '1' });
  return createServer(async (req, res) => {
    try {
      screenHeaders(req.headers, new URL(resource).origin);
      const body = await readJsonBody(req);
      const call = toolCallOf(parseRpcMessage(body));
      const screened = call && catalog.get(call.name)?.screen(call.arguments);
      if (screened && !('accepted' in screened)) throw new Error('refused');
      const request = toSdkRequest(resource, req.headers, abortOnDisconnect(res));
      screened?.accepted(request);
      const response = await dispatcher.dispatch(everything, request, body);
      await writeWebResponse(res, response);
    } catch (err) {
      sendJson(res, 400, { error: String(err) });
    }
  });
}

const build = { 'sdk-plain': sdkPlain, noauth: noAuth }[variant];
if (!build) throw new Error(`unknown variant ${variant}`);
const server = await build(await openBenchEngine(configFile));
await listen(server, '127.0.0.1', port);
process.stdout.write(`listening on ${resource}\n`);
process.on('SIGTERM', () => process.exit(0));
