import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatSvidLogLine, parseSvidLogLine } from '../../src/identity-provider/svid-log-line.js';

describe('the --log-svids line', () => {
  it('reads back what it wrote', () => {
    const minted = { count: 12, spiffeId: 'spiffe://example.org/agent', audience: ['http://127.0.0.1:8080', 'x y'] };
    const line = formatSvidLogLine(minted);
    assert.equal(
      line,
      'identity-provider: minted JWT-SVID #12 for spiffe://example.org/agent aud ["http://127.0.0.1:8080","x y"]',
    );
    assert.deepEqual(parseSvidLogLine(line), minted);
  });

  it('ignores every other line, including look-alikes', () => {
    for (const line of [
      'identity-provider: rotated the JWT signing key; new kid k2',
      'identity-provider: minted JWT-SVID #x for spiffe://example.org/agent aud []',
      'identity-provider: minted JWT-SVID #1 for spiffe://example.org/agent aud [1]',
      'identity-provider: minted JWT-SVID #1 for spiffe://example.org/agent aud [',
      'xidentity-provider: minted JWT-SVID #1 for spiffe://example.org/agent aud []',
    ]) {
      assert.equal(parseSvidLogLine(line), undefined, line);
    }
  });
});
