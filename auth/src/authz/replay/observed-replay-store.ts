import type { ReplayStore, ReplayStoreFailure } from './replay-store.js';
import { ReplayStoreError } from './replay-store.js';

/** Told about every record call: how long it took and, when it failed, why. */
export interface ReplayStoreObserver {
  observe(seconds: number, failure: ReplayStoreFailure | null): void;
}

/** `store`, with every record timed and its failures classified for the observer (the metrics). */
export function observedReplayStore(store: ReplayStore, observer: ReplayStoreObserver): ReplayStore {
  return {
    kind: store.kind,
    capacity: store.capacity,
    liveEntries: () => store.liveEntries(),
    close: () => store.close(),
    async record(entry, shareLimit) {
      const startedMs = performance.now();
      try {
        const result = await store.record(entry, shareLimit);
        observer.observe((performance.now() - startedMs) / 1000, null);
        return result;
      } catch (err) {
        observer.observe(
          (performance.now() - startedMs) / 1000,
          err instanceof ReplayStoreError ? err.failure : 'error',
        );
        throw err;
      }
    },
  };
}
