import { terminalJson } from '@notegate/kit';
import type { MintedSvid } from './identity-provider.js';

/**
 * The line `notegate identity-provider --log-svids` prints on stderr per JWT-SVID minted, and its
 * parser: one module, so the demo that counts these lines and the provider that writes them agree.
 */
const PREFIX = 'identity-provider: minted JWT-SVID #';
const LINE = /^identity-provider: minted JWT-SVID #(\d+) for (\S+) aud (\[.*\])$/;

export function formatSvidLogLine(minted: MintedSvid): string {
  // The audience is the workload's request: its control characters are JSON escapes (docs/security.md#operators-terminals).
  return `${PREFIX}${minted.count} for ${minted.spiffeId} aud ${terminalJson(minted.audience)}`;
}

/** The minted SVID a line reports, or undefined for any other line. */
export function parseSvidLogLine(line: string): MintedSvid | undefined {
  const match = LINE.exec(line);
  if (!match) return undefined;
  const [, count, spiffeId, audience] = match;
  let parsed: unknown;
  try {
    parsed = JSON.parse(audience ?? '');
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed) || !parsed.every((value) => typeof value === 'string')) return undefined;
  return { count: Number(count), spiffeId: spiffeId ?? '', audience: parsed };
}
