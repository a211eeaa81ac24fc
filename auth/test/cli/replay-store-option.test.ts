import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { UsageError } from '@notegate/kit/cli';
import { tempDir } from '@notegate/kit/testing';
import { parseReplayCapacity, parseReplayStore, readRedisPassword } from '../../src/cli/replay-store-option.js';

const FLAG = '--replay-store';
const FILE_FLAG = '--replay-store-password-file';

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
    ['redis://:s3cr%40t@cache/2', undefined, { password: 's3cr@t', username: undefined, display: 'redis://cache/2' }],
    ['redis://notegate:pw@cache', undefined, { username: 'notegate', password: 'pw', display: 'redis://cache' }],
    ['redis://cache', 'from-outside', { password: 'from-outside' }],
    ['redis://notegate@cache', 'from-outside', { username: 'notegate', password: 'from-outside' }],
  ];
  for (const [value, env, expected] of accepted) {
    it(`reads ${value}${env ? ` with a password given outside the URL` : ''}`, () => {
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
    // Mistyped so that they parse as a URL without a host, or as none.
    ['redis:secret@cache', /^--replay-store: 'redis:…@cache' has no host/],
    ['redis:/:secret@cache', /^--replay-store: 'redis:\/…@cache' has no host/],
    ['redis:///user:secret@cache/0', /^--replay-store: 'redis:\/\/\/…@cache\/0' has no host/],
    ['redis:://:secret@cache', /^--replay-store: 'redis:…@cache' has no host/],
    ['redis: //:secret@cache', /^--replay-store: 'redis:…@cache' has no host/],
    ['redis:\\\\:secret@cache', /^--replay-store: 'redis:…@cache' has no host/],
    ['redis:secret@', /^--replay-store: 'redis:…@' has no host/],
    ['redis//:secret@cache', /^--replay-store: '…@cache' is not a URL/],
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

describe('the password outside the URL', () => {
  it('refuses a URL that carries a password when one is given outside it too, showing neither', () => {
    assert.throws(
      () => parseReplayStore(FLAG, 'redis://:secret@cache', 'other-secret'),
      (err: unknown) =>
        err instanceof UsageError &&
        /^--replay-store: 'redis:\/\/cache' carries a password, and so does the password file or NOTEGATE_REDIS_PASSWORD/.test(
          err.message,
        ) &&
        !/secret/.test(err.message),
    );
  });

  it('tells where the password came from, so that authz can warn about one in the URL', () => {
    const from = (value: string, password: string | undefined) => {
      const choice = parseReplayStore(FLAG, value, password);
      return choice.kind === 'redis' ? choice.passwordFrom : choice.kind;
    };
    assert.equal(from('redis://:pw@cache', undefined), 'url');
    assert.equal(from('redis://cache', 'pw'), 'outside');
    assert.equal(from('redis://cache', undefined), 'none');
  });

  it('reads the password file, one line without its line end, in preference to nothing', (t) => {
    const dir = tempDir(t, 'notegate-redis-password-');
    const file = join(dir, 'password');
    for (const [content, expected] of [
      ['s3cret\n', 's3cret'],
      ['s3cret\r\n', 's3cret'],
      ['with space and : @ /', 'with space and : @ /'],
    ] as const) {
      writeFileSync(file, content, { mode: 0o600 });
      assert.equal(readRedisPassword(FILE_FLAG, file, undefined), expected);
    }
    assert.equal(readRedisPassword(FILE_FLAG, undefined, 'from-env'), 'from-env');
    assert.equal(readRedisPassword(FILE_FLAG, undefined, ''), undefined);
    assert.equal(readRedisPassword(FILE_FLAG, undefined, undefined), undefined);
  });

  it('refuses a password file that is empty, missing, a folder, or given with the variable set too', (t) => {
    const dir = tempDir(t, 'notegate-redis-password-');
    const file = join(dir, 'password');
    writeFileSync(file, 'pw-in-file\n', { mode: 0o600 });
    const empty = join(dir, 'empty');
    writeFileSync(empty, '\n', { mode: 0o600 });
    const cases: ReadonlyArray<readonly [string, string | undefined, RegExp]> = [
      [empty, undefined, /^--replay-store-password-file .*empty: the file is empty$/],
      [join(dir, 'missing'), undefined, /^--replay-store-password-file .*missing: cannot read the password: .*ENOENT/],
      [dir, undefined, /: cannot read the password: not a regular file$/],
      [
        file,
        'pw-in-env',
        /^--replay-store-password-file: NOTEGATE_REDIS_PASSWORD is set too; give the password one way$/,
      ],
    ];
    for (const [path, env, message] of cases) {
      assert.throws(
        () => readRedisPassword(FILE_FLAG, path, env),
        (err: unknown) => err instanceof UsageError && message.test(err.message) && !/pw-in/.test(err.message),
        path,
      );
    }
  });
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
