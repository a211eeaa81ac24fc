import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UsageError } from '@notegate/kit/cli';
import { parseWorkloads } from '../../src/identity-provider/workloads-file.js';

const GOOD = `
trust_domain: example.org
workloads:
  - name: agent
    spiffe_id: spiffe://example.org/agent
  - name: authz_1
    spiffe_id: spiffe://example.org/ns/authz
`;

describe('parseWorkloads', () => {
  it('reads the trust domain and the workloads', () => {
    assert.deepEqual(parseWorkloads(GOOD, 'w.yaml'), {
      trustDomain: 'example.org',
      workloads: [
        { name: 'agent', spiffeId: 'spiffe://example.org/agent' },
        { name: 'authz_1', spiffeId: 'spiffe://example.org/ns/authz' },
      ],
    });
  });

  const entry = (name: string, id: string) => `  - name: ${name}\n    spiffe_id: ${id}\n`;
  const file = (...entries: string[]) => `trust_domain: example.org\nworkloads:\n${entries.join('')}`;
  const bad: ReadonlyArray<readonly [string, string, RegExp]> = [
    ['a YAML syntax error', 'trust_domain: [', /YAML/],
    ['a list at top level', '- a', /top level: must be a mapping/],
    ['an unknown top-level key', `${GOOD}extra: 1\n`, /top level: unknown key extra/],
    ['a missing trust_domain', 'workloads: []', /trust_domain: is required/],
    ['a malformed trust_domain', 'trust_domain: Example.org\nworkloads: []', /trust_domain: .*lowercase/],
    ['an empty workload list', 'trust_domain: example.org\nworkloads: []', /workloads: must be a non-empty list/],
    [
      'an unknown workload key',
      file(`${entry('a', 'spiffe://example.org/a')}    ttl: 5\n`),
      /workloads\[0\]: unknown key ttl/,
    ],
    [
      'a name with a path separator',
      file(entry('../etc', 'spiffe://example.org/a')),
      /workloads\[0\]\.name: '\.\.\/etc'/,
    ],
    ['a name with a dot', file(entry('a.b', 'spiffe://example.org/a')), /workloads\[0\]\.name/],
    ['an uppercase name', file(entry('Agent', 'spiffe://example.org/a')), /workloads\[0\]\.name/],
    ['a missing spiffe_id', file('  - name: a\n'), /workloads\[0\]\.spiffe_id: is required/],
    [
      'a malformed spiffe_id',
      file(entry('a', 'spiffe://example.org/a/')),
      /workloads\[0\]\.spiffe_id: .*trailing slash/,
    ],
    ['a spiffe_id outside the trust domain', file(entry('a', 'spiffe://other.org/a')), /outside trust_domain/],
    [
      'a duplicate name',
      file(entry('a', 'spiffe://example.org/a'), entry('a', 'spiffe://example.org/b')),
      /workloads\[1\]\.name: 'a' duplicates workloads\[0\]\.name/,
    ],
    [
      'a duplicate spiffe_id',
      file(entry('a', 'spiffe://example.org/a'), entry('b', 'spiffe://example.org/a')),
      /workloads\[1\]\.spiffe_id: .* duplicates workloads\[0\]\.spiffe_id/,
    ],
  ];
  for (const [what, text, message] of bad) {
    it(`refuses ${what}, naming the file and the entry`, () => {
      assert.throws(
        () => parseWorkloads(text, 'w.yaml'),
        (err: unknown) =>
          err instanceof UsageError && err.message.startsWith('workloads file w.yaml: ') && message.test(err.message),
      );
    });
  }
});
