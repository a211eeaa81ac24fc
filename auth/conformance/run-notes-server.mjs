#!/usr/bin/env node
// Runs the MCP conformance tool (server mode, @modelcontextprotocol/conformance 0.1.13, the newest that
// starts on Node 20) against a notes server. The tool's client sends no credentials, so it talks to a
// loopback proxy that adds a valid access token to every request; the notes server's resource URI is the
// proxy's URL (the deployment "behind a proxy"), so Origin checks see the origin clients use.
// Usage: npm run conformance [-- --scenario NAME]   (exit code 0 = everything outside the baseline passed)
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stripVTControlCharacters } from 'node:util';
import { closeServer, listen } from '@notegate/kit/http';
import { AuditLog } from '../dist/src/audit/audit-log.js';
import { createNotesServer } from '../dist/src/mcp-server/notes-server.js';
import { TestAccessTokenIssuer } from '../dist/test/support/access-token-issuer.js';
import { openFolderEngine } from '../dist/test/support/test-engine.js';

const here = dirname(fileURLToPath(import.meta.url));
const BASELINE = join(here, 'notes-server-baseline.yml');
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
  BASELINE,
  '--output-dir',
  join(notesDir, 'results'),
  ...process.argv.slice(2),
];
let toolOutput = '';
const exitCode = await new Promise((resolve) => {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  child.stdout.on('data', (chunk) => {
    process.stdout.write(chunk);
    toolOutput += chunk.toString();
  });
  child.on('close', (code) => resolve(code ?? 1));
});

const decisions = audit.map((line) => JSON.parse(line).decision);
process.stdout.write(
  `\nnotes server audit: ${decisions.filter((d) => d === 'allow').length} allow, ${decisions.filter((d) => d === 'deny').length} deny\n`,
);
process.stdout.write(verdict(exitCode, toolOutput));
await notes.close();
await closeServer(notes.server);
await closeServer(proxy);
await issuer.close();
rmSync(notesDir, { recursive: true, force: true });
process.exitCode = exitCode;

/**
 * The baseline's scenarios, each with its reason: the comment lines above a run of `- name` entries
 * (notes-server-baseline.yml keeps one comment per group).
 */
function baselineReasons() {
  const reasons = new Map();
  let comment = [];
  let inGroup = false;
  for (const line of readFileSync(BASELINE, 'utf8').split('\n')) {
    const text = line.trim();
    if (text.startsWith('#')) {
      if (inGroup) comment = [];
      inGroup = false;
      comment.push(text.replace(/^#\s*/, ''));
    } else if (text.startsWith('- ')) {
      inGroup = true;
      reasons.set(text.slice(2).trim(), comment.join(' '));
    } else {
      // `server:` or a blank line: the file's header comment is no group's reason.
      comment = [];
      inGroup = false;
    }
  }
  return reasons;
}

/** What failed and why it is expected, then a one-line verdict: the tool's own summary counts every failure alike. */
function verdict(code, output) {
  const plain = stripVTControlCharacters(output);
  const results = [...plain.matchAll(/^([✓✗]) ([\w-]+): \d+ passed, \d+ failed$/gm)];
  const passed = results.filter((r) => r[1] === '✓').map((r) => r[2]);
  const failed = results.filter((r) => r[1] === '✗').map((r) => r[2]);
  const reasons = baselineReasons();
  const byReason = new Map();
  for (const name of failed.filter((f) => reasons.has(f))) {
    const reason = reasons.get(name);
    byReason.set(reason, [...(byReason.get(reason) ?? []), name]);
  }
  const lines = [
    '',
    `Expected failures: ${failed.length - failed.filter((f) => !reasons.has(f)).length} of the ${failed.length} above are in the baseline (auth/conformance/notes-server-baseline.yml), because:`,
  ];
  for (const [reason, names] of byReason) lines.push(`  - ${reason}`, `      ${names.join(', ')}`);
  const unexpected = failed.filter((f) => !reasons.has(f));
  const required = passed.filter((p) => !reasons.has(p));
  lines.push(
    code === 0
      ? `Verdict: PASS. Every scenario that applies to the notes server passed: ${required.join(', ')}.`
      : `Verdict: FAIL. ${unexpected.length > 0 ? `Failed outside the baseline: ${unexpected.join(', ')}.` : `The conformance tool exited ${code}; see its output above.`}`,
  );
  return `${lines.join('\n')}\n`;
}
