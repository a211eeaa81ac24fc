import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UsageError } from '@notegate/kit/cli';
import { parseReplayCapacity, parseReplayStore } from '../../src/cli/replay-store-option.js';

const FLAG = '--replay-store';

describe('parseReplayStore', () => {
  it('takes memory', () => {
    assert.deepEqual(parseReplayStore(FLAG, 'memory', undefined), { kind: 'memory' });
  });

  const accepted: ReadonlyArray<readonly [string, string | undefined, Record<string, unknown>]> = [
    [
      'redis://cache',
      undefined,
      { host: 'cache', port: 6379, db: 0, tls: false, password: undefined, display: 'redis://cache' },
    ],
    ['redis://10.0.0.5:6380/3', undefined, { host: '10.0.0.5', port: 6380, db: 3, display: 'redis://10.0.0.5:6380/3' }],
    ['rediss://cache.internal/1', undefined, { tls: true, db: 1, port: 6379 }],
    ['redis://[::1]:7000', undefined, { host: '::1', port: 7000 }],
    ['redis://:s3cr%40t@cache/2', 'from-env', { password: 's3cr@t', username: undefined, display: 'redis://cache/2' }],
    ['redis://notegate:pw@cache', undefined, { username: 'notegate', password: 'pw', display: 'redis://cache' }],
    ['redis://cache', 'from-env', { password: 'from-env' }],
    ['redis://cache', '', { password: undefined }],
  ];
  for (const [value, env, expected] of accepted) {
    it(`reads ${value}${env ? ` with the password variable set` : ''}`, () => {
      const choice = parseReplayStore(FLAG, value, env);
      assert.equal(choice.kind, 'redis');
      if (choice.kind !== 'redis') return;
      for (const [field, want] of Object.entries(expected)) {
        assert.deepEqual(choice.connection[field as keyof typeof choice.connection], want, field);
      }
      assert.doesNotMatch(choice.connection.display, /s3cr|pw@|:pw/, 'no password in what is shown');
    });
  }

  const refused: ReadonlyArray<readonly [string, RegExp]> = [
    ['disk', /'disk' is not a URL \(expected 'memory', redis:\/\//],
    ['http://cache:6379', /'http:' is not allowed/],
    ['redis://cache:99999', /'redis:\/\/cache:99999' is not a URL/],
    ['redis://:secret@cache:99999', /'redis:\/\/…@cache:99999' is not a URL/],
    ['redis://:se/cret+secret==@cache:99999', /'redis:\/\/…@cache:99999' is not a URL/],
    ['redis://:100%secret@cache', /^--replay-store: the password is not percent-encoded correctly/],
    ['redis://cache/x', /--replay-store database: 'x' is not an integer/],
    ['redis://cache/1/2', /the path is the database number/],
    ['redis://cache?family=6', /must not have a query or fragment/],
    ['redis://:secret@cache?tls=1', /^--replay-store: 'redis:\/\/cache' must not have a query or fragment$/],
  ];
  for (const [value, message] of refused) {
    it(`refuses ${value.replace('secret', '…')}, naming the flag and never the password`, () => {
      assert.throws(
        () => parseReplayStore(FLAG, value, undefined),
        (err: unknown) => err instanceof UsageError && message.test(err.message) && !err.message.includes('secret'),
      );
    });
  }
});

describe('parseReplayCapacity', () => {
  it('defaults to 10,000 in memory and 1,000,000 on Redis, and takes 1 and up', () => {
    const redis = parseReplayStore(FLAG, 'redis://cache', undefined);
    assert.equal(parseReplayCapacity('--replay-capacity', undefined, { kind: 'memory' }), 10_000);
    assert.equal(parseReplayCapacity('--replay-capacity', undefined, redis), 1_000_000);
    assert.equal(parseReplayCapacity('--replay-capacity', '5000000', redis), 5_000_000);
    assert.throws(() => parseReplayCapacity('--replay-capacity', '0', redis), /--replay-capacity: 0 is out of range/);
  });
});
