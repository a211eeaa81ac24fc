import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chunkerSettingsFor } from '../../src/chunk/settings.js';
import { canonicalJson, fingerprintInputsOf, fingerprintOf } from '../../src/indexer/fingerprint.js';
import { E5_SMALL, model } from '../../test-support/fixtures.js';

describe('fingerprintOf', () => {
  const e5 = model(E5_SMALL);
  const base = fingerprintInputsOf(e5, { weights: 'a', tokenizer: 'b' }, chunkerSettingsFor(e5));

  it('is stable whatever the key order', () => {
    assert.equal(canonicalJson({ b: 1, a: { d: 2, c: 3 } }), '{"a":{"c":3,"d":2},"b":1}');
    assert.equal(fingerprintOf(base), fingerprintOf({ ...base, modelFiles: { tokenizer: 'b', weights: 'a' } }));
    assert.match(fingerprintOf(base), /^[0-9a-f]{64}$/);
  });

  it('changes with the weights, the prefixes and the chunker settings', () => {
    const changed = [
      { ...base, modelFiles: { weights: 'other', tokenizer: 'b' } },
      { ...base, passagePrefix: '' },
      { ...base, chunker: { ...base.chunker, targetTokens: base.chunker.targetTokens + 1 } },
      { ...base, breadcrumb: 'other format' },
    ];
    for (const inputs of changed) assert.notEqual(fingerprintOf(inputs), fingerprintOf(base));
  });
});
