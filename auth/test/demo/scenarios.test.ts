import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AuditEntry } from '../../src/demo/audit-trail.js';
import { parseAuditLine } from '../../src/demo/audit-trail.js';
import type { AgentRun, Scenario, ScenarioContext, ScenarioDeployment } from '../../src/demo/scenario.js';
import { allowed } from '../../src/demo/scenarios/allowed.js';
import { insufficientScope } from '../../src/demo/scenarios/insufficient-scope.js';
import { stolenToken } from '../../src/demo/scenarios/stolen-token.js';
import { untrustedIssuer } from '../../src/demo/scenarios/untrusted-issuer.js';

/** What the fake agent answers: stdout lines, stderr and exit code, by the run's tool (or `list`). */
type Script = Record<string, { code: number; stdout?: unknown[]; stderr?: string }>;

function deployment(overrides: Partial<ScenarioDeployment> = {}): ScenarioDeployment {
  const server = (name: string, port: number) => ({
    name,
    resource: `http://127.0.0.1:${port}/mcp`,
    issuer: 'http://127.0.0.1:9000',
    metricsUrl: `http://127.0.0.1:${port + 100}/metrics`,
  });
  return {
    notesA: server('notes-a', 9001),
    notesB: server('notes-b', 9002),
    notesC: { ...server('notes-c', 9003), issuer: 'http://127.0.0.1:9666' },
    untrusted: { issuer: 'http://127.0.0.1:9666', requests: [] },
    svids: { count: 5, label: 'identity provider, JWT-SVIDs minted' },
    ...overrides,
  };
}

function audit(...lines: Partial<Record<string, unknown>>[]): AuditEntry[] {
  return lines.map((line) =>
    parseAuditLine(
      JSON.stringify({
        timestamp: '2026-11-22T08:00:00.000Z',
        component: 'agent',
        spiffe_id: null,
        tool: null,
        decision: 'allow',
        reason: 'x',
        ...line,
      }),
    ),
  );
}

async function outcomeOf(scenario: Scenario, script: Script, options: Partial<Omit<ScenarioContext, 'agent'>> = {}) {
  const context: ScenarioContext = {
    deployment: options.deployment ?? deployment(),
    auditSoFar: options.auditSoFar ?? (async () => []),
    agent: async (_caller, resource, args = []): Promise<AgentRun> => {
      const tool = args[args.indexOf('--tool') + 1];
      const answer = script[args.includes('--tool') && tool ? tool : 'list'] ?? { code: 99 };
      return {
        args: ['agent', '--resource', resource, ...args],
        code: answer.code,
        stdout: (answer.stdout ?? []).map((line) => `${JSON.stringify(line)}\n`).join(''),
        stderr: answer.stderr ?? '',
        durationMs: 1,
      };
    },
  };
  const outcome = await scenario.run(context);
  return Object.fromEntries(outcome.checks.map((check) => [check.label, check.pass]));
}

const failing = (checks: Record<string, boolean>) =>
  Object.entries(checks)
    .filter(([, pass]) => !pass)
    .map(([label]) => label);

describe('demo scenario checks (fake agent runs)', () => {
  const written = { structuredContent: { vault: 'notes-a', path: 'Drill.md', created: true, indexed: true } };
  const hit = (vault: string, path: string) => ({ vault, path, line_start: 1, line_end: 3, snippet: 'text' });
  const handbook = hit('handbook', 'engineering/key-rotation.md');
  const found = { structuredContent: { hits: [handbook, hit('notes-a', 'Drill.md')] } };

  it('1 Allowed: passes when the note is written and found beside the handbook; fails naming what is missing', async () => {
    assert.deepEqual(
      failing(
        await outcomeOf(allowed, {
          'notes.write': { code: 0, stdout: [written] },
          'notes.search': { code: 0, stdout: [found] },
        }),
      ),
      [],
    );
    const missed = { structuredContent: { hits: [handbook, hit('notes-b', 'Drill.md')] } };
    assert.deepEqual(
      failing(
        await outcomeOf(allowed, {
          'notes.write': { code: 0, stdout: [written] },
          'notes.search': { code: 0, stdout: [missed] },
        }),
      ),
      ['notes.search found the note just written'],
    );
    const ungrounded = { structuredContent: { hits: [hit('notes-a', 'Drill.md')] } };
    assert.deepEqual(
      failing(
        await outcomeOf(allowed, {
          'notes.write': { code: 0, stdout: [written] },
          'notes.search': { code: 0, stdout: [ungrounded] },
        }),
      ),
      ["notes.search found the handbook's engineering/key-rotation.md, with its lines"],
    );
  });

  const insufficient = {
    code: 3,
    stderr:
      'notegate agent: mcp_call: insufficient_scope: HTTP 403 from http://x/mcp: the call needs scope "notes:write"; ' +
      'WWW-Authenticate: Bearer error="insufficient_scope", scope="notes:write"\n',
  };
  const readerDeny = audit({
    component: 'mcp_server:notes-a',
    decision: 'deny',
    tool: 'notes.write',
    reason: 'insufficient_scope: x',
  });

  it('2 Insufficient scope: passes on a filtered list and a 403; fails when notes.write is listed or allowed', async () => {
    const good = {
      list: { code: 0, stdout: [{ tools: [{ name: 'notes.read' }, { name: 'notes.search' }] }] },
      'notes.write': insufficient,
    };
    assert.deepEqual(failing(await outcomeOf(insufficientScope, good, { auditSoFar: async () => readerDeny })), []);
    const leaky = {
      list: {
        code: 0,
        stdout: [{ tools: [{ name: 'notes.read' }, { name: 'notes.search' }, { name: 'notes.write' }] }],
      },
      'notes.write': { code: 0, stdout: [written] },
    };
    assert.deepEqual(failing(await outcomeOf(insufficientScope, leaky)), [
      'tools/list shows the notes:read tools (notes.read, notes.search) and not notes.write',
      'notes.write refused: HTTP 403 insufficient_scope, challenge names notes:write',
      'notes-a audited the refusal (deny, insufficient_scope, notes.write)',
    ]);
  });

  it('3 Stolen token: passes on 401 invalid_token; fails when the other server accepts the token', async () => {
    const refused = {
      status: 401,
      error: 'invalid_token',
      accepted: false,
      www_authenticate: 'Bearer error="invalid_token"',
    };
    const audienceDeny = audit({
      component: 'mcp_server:notes-b',
      decision: 'deny',
      reason: 'invalid_token: x (aud is "a", expected b)',
    });
    assert.deepEqual(
      failing(
        await outcomeOf(
          stolenToken,
          { 'notes.search': { code: 0, stdout: [found, refused] } },
          { auditSoFar: async () => audienceDeny },
        ),
      ),
      [],
    );
    const accepted = { status: 200, error: null, accepted: true, www_authenticate: null };
    assert.deepEqual(
      failing(await outcomeOf(stolenToken, { 'notes.search': { code: 6, stdout: [found, accepted] } })),
      ['notes-b refused the replayed token: 401 invalid_token', "notes-b's deny line names the audience mismatch"],
    );
  });

  const issuerRefused = {
    code: 3,
    stderr: 'notegate agent: issuer_selection: issuer_refused: none of the issuers ["http://127.0.0.1:9666"] …\n',
  };
  const refusalAudited = audit({ decision: 'deny', reason: 'issuer_refused: none of the issuers' });
  /** The checks that fail when the agent is refused as it should be, in this deployment. */
  const refusedIn = async (world: ScenarioDeployment) =>
    failing(
      await outcomeOf(
        untrustedIssuer,
        { 'notes.search': issuerRefused },
        { deployment: world, auditSoFar: async () => refusalAudited },
      ),
    );

  it('4 Untrusted issuer: passes on issuer_refused with nothing sent and nothing minted', async () => {
    assert.deepEqual(await refusedIn(deployment()), []);
  });

  it('4 Untrusted issuer: fails when the issuer got a request, an SVID was minted, or the count is not being read', async () => {
    const request = 'GET /.well-known/oauth-authorization-server';
    const contacted = deployment({ untrusted: { issuer: 'http://127.0.0.1:9666', requests: [request] } });
    assert.deepEqual(await refusedIn(contacted), ['no request reached the untrusted issuer (count 0)']);
    let minted = 5;
    const minting = deployment({
      svids: {
        get count() {
          minted += 1;
          return minted;
        },
        label: 'minted',
      },
    });
    const noSvid = 'no JWT-SVID was fetched (the count did not move)';
    assert.deepEqual(await refusedIn(minting), [noSvid]);
    assert.deepEqual(await refusedIn(deployment({ svids: { count: 0, label: 'minted' } })), [noSvid]);
  });
});
