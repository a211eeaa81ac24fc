import type { MintedSvid } from '../identity-provider/identity-provider.js';
import { parseSvidLogLine } from '../identity-provider/svid-log-line.js';
import type { RunningChild } from './child-processes.js';

/**
 * How many JWT-SVIDs the identity provider has minted, read from its `--log-svids` lines. The
 * provider writes each line (synchronously, to a pipe) before it answers FetchJWTSVID, so by the
 * time an agent has exited, the line of any SVID it fetched has long been readable here.
 */
export class SvidCount {
  readonly minted: MintedSvid[] = [];

  constructor(provider: RunningChild) {
    provider.onStderrLine((line) => {
      const minted = parseSvidLogLine(line);
      if (minted) this.minted.push(minted);
    });
  }

  get count(): number {
    return this.minted.at(-1)?.count ?? 0;
  }
}
