import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { status } from '@grpc/grpc-js';
import { describeFailure } from '../../../src/spiffe/workload-api/errors.js';

const unreachable = (errno: string) =>
  `No connection established. Last error: Error: connect ${errno} /run/spire/agent.sock. Resolution note: `;

describe('describeFailure', () => {
  const cases: ReadonlyArray<readonly [string, number, string, string]> = [
    [
      'a missing socket',
      status.UNAVAILABLE,
      unreachable('ENOENT'),
      'cannot connect: no socket at that path; start the SPIRE agent or notegate identity-provider that serves it, or fix the address',
    ],
    [
      'a socket nobody serves',
      status.UNAVAILABLE,
      unreachable('ECONNREFUSED'),
      'cannot connect: nothing accepts connections there (the server that served it has stopped)',
    ],
    [
      'a socket this user may not open',
      status.UNAVAILABLE,
      unreachable('EACCES'),
      'cannot connect: permission denied (the socket or its folder is not open to this user)',
    ],
    ['another connection error, by its name', status.UNAVAILABLE, unreachable('EMFILE'), 'cannot connect: EMFILE'],
    [
      'any other status, as grpc-js says it',
      status.PERMISSION_DENIED,
      'no identity issued',
      'PERMISSION_DENIED: no identity issued',
    ],
  ];
  for (const [what, code, details, expected] of cases) {
    it(`says ${what} in words`, () => {
      assert.equal(describeFailure(code, details), expected);
    });
  }
});
