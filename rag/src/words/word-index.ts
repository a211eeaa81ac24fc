/** How the in-memory word index of a full load ended (docs/retrieval.md#snapshots). */
export type WordIndexState =
  | { readonly kind: 'ready'; readonly buildMs: number }
  | { readonly kind: 'unavailable'; readonly reason: string };

/** One line for an operator's log: where the lexical leg's word tier is ranked from now on, and why. */
export function describeWordIndex(state: WordIndexState): string {
  return state.kind === 'ready'
    ? `word index built in ${Math.round(state.buildMs)} ms: lexical ranking in memory`
    : `no word index (${state.reason}): lexical ranking stays in SQLite`;
}
