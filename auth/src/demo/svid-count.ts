import { parseSvidLogLine } from '../identity-provider/svid-log-line.js';
import type { RunningChild } from '../shared/child-processes.js';
import type { SvidCounter } from './identity.js';

/**
 * How many JWT-SVIDs the identity provider has minted, read from its `--log-svids` lines. The
 * provider writes each line (synchronously, to a pipe) before it answers FetchJWTSVID, so by the
 * time an agent has exited, the line of any SVID it fetched has long been readable here.
 */
export class SvidCount implements SvidCounter {
  readonly label = 'identity provider, JWT-SVIDs minted';
  #count = 0;

  constructor(provider: RunningChild) {
    provider.onLine((line) => {
      const minted = parseSvidLogLine(line);
      if (minted) this.#count = minted.count;
    });
  }

  get count(): number {
    return this.#count;
  }
}
