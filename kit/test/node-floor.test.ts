import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { meetsNodeFloor } from '../src/node-floor.js';

describe('meetsNodeFloor', () => {
  const cases: [string, boolean][] = [
    ['20.12.0', true],
    ['20.20.2', true],
    ['22.1.0', true],
    ['20.11.1', false],
    ['18.19.0', false],
    ['not a version', false],
  ];
  for (const [version, expected] of cases) {
    it(`${version}: ${expected ? 'runs' : 'refuses'}`, () => assert.equal(meetsNodeFloor(version), expected));
  }

  it('is the floor this test runs on or above', () => assert.ok(meetsNodeFloor(process.versions.node)));
});
