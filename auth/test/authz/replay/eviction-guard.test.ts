import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EvictionCheck } from '../../../src/authz/replay/eviction-guard.js';
import { EvictionGuard, evictionProblem, maxmemoryPolicyOf } from '../../../src/authz/replay/eviction-guard.js';
import { ReplayStoreError } from '../../../src/authz/replay/replay-store.js';
import { ManualClock } from '../../support/manual-clock.js';

class FakeReply extends Error {}

/** A guard over a scripted server: each read answers the next of `answers` (a text, or an error to throw). */
function guardOver(answers: Array<string | Error>) {
  const clock = new ManualClock(0);
  const changes: EvictionCheck[] = [];
  let reads = 0;
  const guard = new EvictionGuard({
    readInfo: async () => {
      reads += 1;
      const answer = answers.shift();
      if (answer === undefined) throw new Error('no answer scripted');
      if (answer instanceof Error) throw answer;
      return answer;
    },
    isReply: (err) => err instanceof FakeReply,
    clock: clock.now,
    onChange: (check) => changes.push(check),
  });
  return { guard, clock, changes, reads: () => reads };
}

const info = (policy: string) => `# Memory\r\nused_memory:1000\r\nmaxmemory:0\r\nmaxmemory_policy:${policy}\r\n`;

describe('maxmemoryPolicyOf', () => {
  const cases: ReadonlyArray<readonly [string, string | undefined]> = [
    [info('noeviction'), 'noeviction'],
    [info('allkeys-lru'), 'allkeys-lru'],
    [info('volatile-ttl'), 'volatile-ttl'],
    ['# Memory\nmaxmemory_policy:noeviction\n', 'noeviction'],
    ['# Memory\r\nused_memory:1000\r\n', undefined],
    ['maxmemory_policy_other:noeviction\r\n', undefined],
  ];
  for (const [text, expected] of cases) {
    it(`reads ${JSON.stringify(expected)} from ${JSON.stringify(text.slice(-40))}`, () => {
      assert.equal(maxmemoryPolicyOf(text), expected);
    });
  }
});

describe('EvictionGuard', () => {
  it('lets records through only once the server said noeviction', async () => {
    const { guard, changes } = guardOver([info('noeviction')]);
    assert.equal(guard.current.kind, 'unchecked');
    assert.deepEqual(await guard.check(), { kind: 'safe' });
    await guard.require();
    assert.deepEqual(changes, [{ kind: 'safe' }]);
  });

  it('refuses an evicting server naming the setting, and takes a fixed one at the next check a second later', async () => {
    const { guard, clock, changes, reads } = guardOver([info('allkeys-lru'), info('noeviction')]);
    await guard.check();
    await assert.rejects(
      guard.require(),
      (err: unknown) =>
        err instanceof ReplayStoreError &&
        err.failure === 'error' &&
        /^maxmemory-policy is allkeys-lru: .* reject mode needs noeviction \(CONFIG SET maxmemory-policy noeviction\)$/.test(
          err.message,
        ),
    );
    assert.equal(reads(), 1, 'no second read within the second');
    clock.advanceMs(1_000);
    await guard.require();
    assert.equal(reads(), 2);
    assert.deepEqual(changes, [{ kind: 'evicting', policy: 'allkeys-lru' }, { kind: 'safe' }]);
  });

  it('treats a volatile policy as evicting: every entry has a TTL', async () => {
    const { guard } = guardOver([info('volatile-lru')]);
    assert.deepEqual(await guard.check(), { kind: 'evicting', policy: 'volatile-lru' });
  });

  it('refuses a server that will not say (an error reply, or no field), and names the need', async () => {
    const refused = guardOver([new FakeReply("NOPERM this user has no permissions to run the 'info' command")]);
    assert.equal((await refused.guard.check()).kind, 'unreadable');
    await assert.rejects(refused.guard.require(), /cannot read its maxmemory-policy \(INFO memory: NOPERM .*\+info/);
    const silent = guardOver(['# Memory\r\n']);
    assert.deepEqual(await silent.guard.check(), { kind: 'unreadable', reason: 'no maxmemory_policy field' });
  });

  it('keeps its finding through a read that got no answer, and refuses while it has none', async () => {
    const { guard, clock } = guardOver([
      new Error('Command timed out'),
      info('noeviction'),
      new Error('Connection is closed.'),
    ]);
    await assert.rejects(guard.require(), /has not been read yet/);
    clock.advanceMs(1_000);
    await guard.require();
    assert.deepEqual(await guard.check(), { kind: 'safe' }, 'a lost connection leaves safe in force');
  });

  it('gives the first answer to whoever waits for it, never "unchecked"', async () => {
    const { guard } = guardOver([new Error('Command timed out'), info('allkeys-random')]);
    const first = guard.firstAnswer();
    await guard.check();
    await guard.check();
    assert.deepEqual(await first, { kind: 'evicting', policy: 'allkeys-random' });
  });

  it('describes each finding for the operator; a safe one has no problem', () => {
    assert.equal(evictionProblem({ kind: 'safe' }), undefined);
    for (const check of [
      { kind: 'unchecked' },
      { kind: 'evicting', policy: 'allkeys-lfu' },
      { kind: 'unreadable', reason: 'x' },
    ] as const) {
      assert.match(evictionProblem(check) ?? '', /maxmemory-policy.*noeviction/);
    }
  });
});
