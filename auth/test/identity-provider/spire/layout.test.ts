import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { LayoutFacts, ReachTarget, SpireLayoutChoice } from '../../../src/identity-provider/spire/layout.js';
import { chooseSpireLayout, othersCannotReach, reachProblem } from '../../../src/identity-provider/spire/layout.js';

describe('chooseSpireLayout', () => {
  const root: LayoutFacts = { uid: 0, unreachable: undefined };
  const rootLocked: LayoutFacts = { uid: 0, unreachable: 'other users cannot enter /root (mode 0700)' };
  const user: LayoutFacts = { uid: 1000, unreachable: undefined };
  const cases: [string, SpireLayoutChoice, LayoutFacts, string | undefined, RegExp][] = [
    ['auto as root picks uid', 'auto', root, 'uid', /running as root/],
    [
      'auto as root with a locked folder picks an agent per workload',
      'auto',
      rootLocked,
      'agent-per-workload',
      /\/root/,
    ],
    ['auto as a user picks an agent per workload', 'auto', user, 'agent-per-workload', /needs root .*uid 1000/],
    ['uid as root', 'uid', root, 'uid', /asked for/],
    ['uid as a user cannot work', 'uid', user, undefined, /uid layout cannot work here: .*needs root/],
    ['uid as root with a locked folder cannot work', 'uid', rootLocked, undefined, /cannot enter \/root/],
    ['agent-per-workload as root', 'agent-per-workload', root, 'agent-per-workload', /asked for/],
    ['agent-per-workload as a user', 'agent-per-workload', user, 'agent-per-workload', /asked for/],
  ];
  for (const [name, requested, facts, layout, text] of cases) {
    it(name, () => {
      const decision = chooseSpireLayout(requested, facts);
      assert.equal(decision.layout, layout);
      assert.match(decision.layout === undefined ? decision.problem : decision.why, text);
    });
  }
});

describe('reachProblem (what a process of another uid can reach)', () => {
  const modes: Record<string, number> = {
    '/': 0o755,
    '/usr': 0o755,
    '/usr/bin': 0o755,
    '/usr/bin/node': 0o755,
    '/root': 0o700,
    '/root/app.js': 0o644,
    '/srv': 0o711,
    '/srv/app.js': 0o600,
    '/srv/tool': 0o754,
    '/tmp': 0o1777,
  };
  const modeOf = (path: string) => modes[path];
  const cases: [string, ReachTarget[], RegExp | undefined][] = [
    ['a world-executable program in searchable folders', [{ path: '/usr/bin/node', need: 'execute' }], undefined],
    ['a folder anyone may search', [{ path: '/tmp', need: 'search' }], undefined],
    ['a file under a 0700 folder', [{ path: '/root/app.js', need: 'read' }], /cannot enter \/root \(mode 0700\)/],
    [
      'a 0600 file in a 0711 folder',
      [{ path: '/srv/app.js', need: 'read' }],
      /cannot read \/srv\/app\.js \(mode 0600\)/,
    ],
    ['a program others may read but not run', [{ path: '/srv/tool', need: 'execute' }], /cannot execute \/srv\/tool/],
    ['a path that is not there', [{ path: '/srv/gone', need: 'read' }], /cannot read \/srv\/gone$/],
    [
      'the first problem of several targets',
      [
        { path: '/usr/bin/node', need: 'execute' },
        { path: '/root/app.js', need: 'read' },
      ],
      /\/root/,
    ],
  ];
  for (const [name, targets, problem] of cases) {
    it(name, () => {
      const found = reachProblem(targets, modeOf);
      if (problem === undefined) assert.equal(found, undefined);
      else assert.match(found ?? '', problem);
    });
  }

  it('reads the real file system, following symbolic links', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'reach-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    await mkdir(join(dir, 'open'), { mode: 0o755 });
    await writeFile(join(dir, 'open', 'app.js'), '', { mode: 0o644 });
    await chmod(dir, 0o755);
    assert.equal(await othersCannotReach([{ path: join(dir, 'open', 'app.js'), need: 'read' }]), undefined);
    await chmod(dir, 0o700);
    assert.match(
      (await othersCannotReach([{ path: join(dir, 'open', 'app.js'), need: 'read' }])) ?? '',
      /cannot enter .* \(mode 0700\)/,
    );
    assert.match((await othersCannotReach([{ path: join(dir, 'none'), need: 'read' }])) ?? '', /does not exist/);
  });
});
