import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { trustedFileProblem } from '../../src/shared/owner-only.js';

const SERVICE_UID = 1_000;
const file = (uid: number, mode: number) => ({ uid, mode: 0o100000 | mode, isFile: () => true });

describe('trustedFileProblem (docs/security.md#files-the-services-trust)', () => {
  const cases: [string, ReturnType<typeof file>, boolean, string | undefined][] = [
    ['a policy of the service user, 0644', file(SERVICE_UID, 0o644), false, undefined],
    ['a policy of root, 0644 (under /etc)', file(0, 0o644), false, undefined],
    ['a policy of root, 0444', file(0, 0o444), false, undefined],
    [
      'a policy of another user',
      file(1_001, 0o644),
      false,
      'is owned by uid 1001, neither this user (uid 1000) nor root',
    ],
    [
      'a group-writable policy',
      file(SERVICE_UID, 0o664),
      false,
      'is writable by group or others (mode 0664); remove their write permission (chmod go-w)',
    ],
    [
      'a world-writable policy',
      file(SERVICE_UID, 0o666),
      false,
      'is writable by group or others (mode 0666); remove their write permission (chmod go-w)',
    ],
    ['a key file 0600', file(SERVICE_UID, 0o600), true, undefined],
    ['a key file 0400 of root', file(0, 0o400), true, undefined],
    [
      'a key file 0644',
      file(SERVICE_UID, 0o644),
      true,
      'is readable by group or others (mode 0644); make it owner-only (chmod 600)',
    ],
    [
      'a key file 0640',
      file(SERVICE_UID, 0o640),
      true,
      'is readable by group or others (mode 0640); make it owner-only (chmod 600)',
    ],
    [
      'a key file 0666',
      file(SERVICE_UID, 0o666),
      true,
      'is writable by group or others (mode 0666); remove their write permission (chmod go-w)',
    ],
    [
      'a key file of another user',
      file(1_001, 0o600),
      true,
      'is owned by uid 1001, neither this user (uid 1000) nor root',
    ],
    ['a FIFO', { uid: SERVICE_UID, mode: 0o010600, isFile: () => false }, false, 'is not a regular file'],
  ];
  for (const [what, info, secret, problem] of cases) {
    it(`${problem === undefined ? 'trusts' : 'refuses'} ${what}`, () => {
      assert.equal(trustedFileProblem(info, secret, SERVICE_UID), problem);
    });
  }
});
