import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PlanInput } from '../../../src/identity-provider/spire/spire-plan.js';
import { planDeployment, WORKLOAD_UID_BASE } from '../../../src/identity-provider/spire/spire-plan.js';

const WORKLOADS = [
  { name: 'agent', spiffeId: 'spiffe://example.org/agent' },
  { name: 'reader', spiffeId: 'spiffe://example.org/reader', includeJti: true },
];
const input = (overrides: Partial<PlanInput> = {}): PlanInput => ({
  dir: '/tmp/run',
  trustDomain: 'example.org',
  workloads: WORKLOADS,
  layout: 'uid',
  currentUid: 1000,
  ...overrides,
});

describe('planDeployment', () => {
  it('uid layout: one agent for all, each workload its own uid, selected by unix:uid', () => {
    const plan = planDeployment(input());
    assert.deepEqual(
      plan.agents.map((a) => [a.label, a.alias, a.socketPath, a.workloads]),
      [['shared', 'spiffe://example.org/host', '/tmp/run/agents/shared/public/api.sock', ['agent', 'reader']]],
    );
    assert.deepEqual(
      plan.workloads.map((w) => [w.name, w.runAs, w.selectorUid, w.workloadApi, w.includeJti]),
      [
        [
          'agent',
          { uid: WORKLOAD_UID_BASE, gid: WORKLOAD_UID_BASE },
          WORKLOAD_UID_BASE,
          'unix:///tmp/run/agents/shared/public/api.sock',
          false,
        ],
        [
          'reader',
          { uid: WORKLOAD_UID_BASE + 1, gid: WORKLOAD_UID_BASE + 1 },
          WORKLOAD_UID_BASE + 1,
          'unix:///tmp/run/agents/shared/public/api.sock',
          true,
        ],
      ],
    );
  });

  it('per-agent layout: an agent, alias and socket per workload, every entry selecting the current uid', () => {
    const plan = planDeployment(input({ layout: 'agent-per-workload' }));
    assert.deepEqual(
      plan.agents.map((a) => [a.label, a.alias, a.socketPath, a.tokenFile]),
      [
        [
          'agent',
          'spiffe://example.org/host/agent',
          '/tmp/run/agents/agent/public/api.sock',
          '/tmp/run/agents/agent/join-token',
        ],
        [
          'reader',
          'spiffe://example.org/host/reader',
          '/tmp/run/agents/reader/public/api.sock',
          '/tmp/run/agents/reader/join-token',
        ],
      ],
    );
    assert.deepEqual(
      plan.workloads.map((w) => [w.name, w.runAs, w.selectorUid, w.agent]),
      [
        ['agent', undefined, 1000, 'agent'],
        ['reader', undefined, 1000, 'reader'],
      ],
    );
    assert.equal(plan.serverSocket, '/tmp/run/server/private/api.sock');
  });

  const refusals: [string, Partial<PlanInput>, RegExp][] = [
    [
      'a name that is no folder name',
      { workloads: [{ name: '../x', spiffeId: 'spiffe://example.org/x' }] },
      /"\.\.\/x" is not 1 to 32/,
    ],
    ['an upper-case name', { workloads: [{ name: 'Agent', spiffeId: 'spiffe://example.org/x' }] }, /"Agent"/],
    [
      'two workloads of one name',
      { workloads: [WORKLOADS[0], WORKLOADS[0]].flatMap((w) => (w ? [w] : [])) },
      /distinct/,
    ],
    [
      'a folder too deep for a unix socket',
      { dir: `/tmp/${'d'.repeat(90)}` },
      /longer than 107 bytes: use a shorter folder \(TMPDIR\)/,
    ],
  ];
  for (const [name, overrides, message] of refusals) {
    it(`refuses ${name}`, () => assert.throws(() => planDeployment(input(overrides)), message));
  }
});
