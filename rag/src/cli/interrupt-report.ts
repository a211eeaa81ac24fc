import type { IndexProgress } from '../indexer/types.js';

/**
 * What an index run has committed so far, counted from its progress events, for the line an interrupted
 * run prints (docs/retrieval.md#index-runs): every file is its own transaction, so the files reported done
 * are in the index, and the next run reads only what is left.
 */
export function createInterruptReport() {
  let planned: Extract<IndexProgress, { kind: 'planned' }> | undefined;
  let done = 0;
  let written = 0;

  return {
    onProgress(event: IndexProgress): void {
      if (event.kind === 'planned') planned = event;
      if (event.kind !== 'file-done') return;
      done = event.filesDone;
      if (event.outcome === 'new' || event.outcome === 'updated') written += 1;
    },
    describe(): string {
      if (planned === undefined) return 'interrupted before any note was read; the index is as it was';
      const removed = planned.removed > 0 ? `, ${planned.removed} removed` : '';
      const rest = planned.filesToCheck - done;
      return (
        `interrupted: ${done} of ${planned.filesToCheck} files checked and committed (${written} indexed${removed}); ` +
        (rest > 0
          ? `the index keeps them, and the next 'notegate-rag index' goes on with the ${rest} left`
          : 'the index keeps them')
      );
    },
  };
}
