#!/usr/bin/env node
// Runs the MCP conformance tool (server mode, @modelcontextprotocol/conformance 0.1.13, the newest that
// starts on Node 20) against a notes server. The tool's client sends no credentials, so it talks to a
// loopback proxy that adds a valid access token to every request; the notes server's resource URI is the
// proxy's URL (the deployment "behind a proxy"), so Origin checks see the origin clients use.
// Usage: npm run conformance [-- --scenario NAME]   (exit code 0 = everything outside the baseline passed)
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { closeServer, listen } from '@notegate/kit/http';
import { AuditLog } from '../dist/src/audit/audit-log.js';
import { createNotesServer } from '../dist/src/mcp-server/notes-server.js';
import { TestAccessTokenIssuer } from '../dist/test/support/access-token-issuer.js';
import { openFolderEngine } from '../dist/test/support/test-engine.js';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const conformanceBin = join(
  dirname(require.resolve('@modelcontextprotocol/conformance/package.json')),
  'dist/index.js',
);

const proxy = createServer();
const proxyBase = await listen(proxy, '127.0.0.1', 0);
const resource = `${proxyBase.origin}/mcp`;
const issuer = await TestAccessTokenIssuer.start(resource);
const notesDir = mkdtempSync(join(tmpdir(), 'notes-conformance-'));
const audit = [];
const notes = await createNotesServer({
  name: 'conformance',
  resource,
  issuer: issuer.issuer,
  jwksUri: issuer.jwksUri,
  engine: await openFolderEngine(join(notesDir, 'notes')),
  audit: new AuditLog((line) => audit.push(line)),
});
const upstream = await listen(notes.server, '127.0.0.1', 0);

proxy.on('request', async (req, res) => {
  const token = await issuer.sign();
  const forward = request(
    new URL(req.url ?? '/', upstream),
    { method: req.method, headers: { ...req.headers, authorization: `Bearer ${token}` } },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  forward.on('error', () => res.destroy());
  req.pipe(forward);
});

const args = [
  conformanceBin,
  'server',
  '--url',
  resource,
  '--expected-failures',
  join(here, 'notes-server-baseline.yml'),
  '--output-dir',
  join(notesDir, 'results'),
  ...process.argv.slice(2),
];
const exitCode = await new Promise((resolve) => {
  const child = spawn(process.execPath, args, { stdio: 'inherit' });
  child.on('exit', (code) => resolve(code ?? 1));
});

const decisions = audit.map((line) => JSON.parse(line).decision);
process.stdout.write(
  `\nnotes server audit: ${decisions.filter((d) => d === 'allow').length} allow, ${decisions.filter((d) => d === 'deny').length} deny\n`,
);
await notes.close();
await closeServer(notes.server);
await closeServer(proxy);
await issuer.close();
rmSync(notesDir, { recursive: true, force: true });
process.exitCode = exitCode;
