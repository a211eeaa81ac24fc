import type Database from 'better-sqlite3';
import { type ChunkText, readChunkRows } from '../store/load-vectors.js';
import type { LexicalLayout } from '../store/schema.js';
import { pageCopy, pageUint8 } from '../vectors/page-arrays.js';
import { type RemovedRow, withRemovedRows } from '../words/deleted-postings.js';
import type { Fts5Totals } from '../words/fts5-totals.js';
import type { RowTokens } from '../words/token-postings.js';
import type { DeltaPlan } from './delta-plan.js';
import { Segment } from './segment.js';
import type { SegmentDeletions, SegmentSet } from './segment-set.js';
import type { SegmentJobs } from './segment-worker-client.js';

/** The delta cannot be applied: the in-memory index must be loaded whole (the message says why). */
export class DeltaRefused extends Error {}

export interface DeltaSources {
  /** The later state's connection, inside its read transaction. */
  readonly db: Database.Database;
  readonly layout: LexicalLayout;
  readonly dimension: number;
  /**
   * The removed chunks' texts in the earlier state (the previous snapshot's
   * connection); undefined when no connection holds that state any more, and
   * the postings in deleted rows are counted by walking them instead.
   */
  readonly removedTexts: ((chunkIds: readonly number[]) => readonly ChunkText[]) | undefined;
  readonly worker: SegmentJobs;
}

/** FTS5's totals before and after the delta: they must differ by exactly what it adds and removes. */
export interface TotalsCheck {
  readonly before: Fts5Totals;
  readonly after: Fts5Totals;
}

/**
 * The in-memory index of the later state: the earlier one's segments with
 * the removed rows deleted, and one new segment of the added chunks
 * (docs/retrieval.md#snapshots). Costs what the delta changes: the added
 * rows are read and tokenized, the removed rows' tokens mark their terms'
 * postings as deleted. Throws DeltaRefused when what it computes disagrees
 * with what the index holds (tokens or FTS5's totals).
 */
export async function applyDelta(
  set: SegmentSet,
  plan: DeltaPlan,
  sources: DeltaSources,
  totals: TotalsCheck | undefined,
): Promise<SegmentSet> {
  const words = set.hasWords && totals !== undefined;
  const rows = await readChunkRows(sources.db, plan.added, { dimension: sources.dimension, texts: words });
  const removedIds = plan.removed.map((removed) => removed.chunkId);
  const earlier = words && sources.removedTexts ? sources.removedTexts(removedIds) : undefined;
  const built = await sources.worker.run({
    kind: 'delta',
    layout: sources.layout,
    matrix: rows.matrix,
    texts: words ? rows.texts : undefined,
    removed: earlier,
  });
  const segment = new Segment(built.parts);
  const deletions = await deletionsOf(set, plan, built.removedTokens, words ? sources.worker : undefined);
  const next = set.withDeletions(deletions).withSegment(segment);
  if (words && totals) checkTotals(set, plan, segment, sources.layout, totals);
  return next;
}

/** Per segment, the rows to delete and (with word postings) the new counts of postings in deleted rows. */
async function deletionsOf(
  set: SegmentSet,
  plan: DeltaPlan,
  removedTokens: readonly RowTokens[] | undefined,
  worker: SegmentJobs | undefined,
): Promise<Map<number, SegmentDeletions>> {
  const bySegment = new Map<number, RemovedRow[]>();
  plan.removed.forEach((removed, i) => {
    const rows = bySegment.get(removed.at.segment) ?? [];
    rows.push({ row: removed.at.row, tokens: removedTokens?.[i] ?? [] });
    bySegment.set(removed.at.segment, rows);
  });
  const deletions = new Map<number, SegmentDeletions>();
  for (const [s, removed] of bySegment) {
    const state = set.stateAt(s);
    const rows = removed.map((r) => r.row);
    const postings = state.segment.words;
    if (worker === undefined || postings === undefined) {
      deletions.set(s, { rows, deletedPostings: undefined });
    } else if (removedTokens !== undefined) {
      const counts = withRemovedRows(postings, state.deletedPostings, removed);
      if (counts === undefined) throw new DeltaRefused('a removed chunk holds other words than its segment says');
      deletions.set(s, { rows, deletedPostings: counts });
    } else {
      const deleted = state.deleted ? pageCopy(state.deleted) : pageUint8(state.segment.rowCount);
      for (const row of rows) deleted[row] = 1;
      const words = state.segment.parts.words;
      const counted = words ? await worker.run({ kind: 'deleted-postings', words, deleted }) : undefined;
      deletions.set(s, { rows, deletedPostings: counted?.counts });
    }
  }
  return deletions;
}

/**
 * FTS5's totals after the delta are those before it, plus every added row
 * and its tokens, minus every removed row and its tokens where FTS5 takes
 * deleted rows out of its totals (the fallback layout's external-content
 * table). The contentless word table keeps deleted rows in its totals, so
 * there a chunk added and removed again in between counts too: its row is
 * known from the log, but not its tokens (no state holds its text), and then
 * the tokens are checked only as far as they are known.
 */
function checkTotals(
  set: SegmentSet,
  plan: DeltaPlan,
  added: Segment,
  layout: LexicalLayout,
  totals: TotalsCheck,
): void {
  const removedTokens = plan.removed.reduce(
    (sum, removed) => sum + (set.stateAt(removed.at.segment).segment.words?.lengths[removed.at.row] ?? 0),
    0,
  );
  let addedTokens = 0;
  for (const length of added.words?.lengths ?? []) addedTokens += length;
  const subtracts = layout === 'words';
  const rows = subtracts
    ? totals.before.rows + plan.added.length - plan.removed.length
    : totals.before.rows + plan.added.length + plan.transient;
  const tokens = totals.before.tokens + addedTokens - (subtracts ? removedTokens : 0);
  const tokensKnown = subtracts || plan.transient === 0;
  if (rows !== totals.after.rows || (tokensKnown ? tokens !== totals.after.tokens : tokens > totals.after.tokens)) {
    throw new DeltaRefused(
      `FTS5 counts ${totals.after.rows} rows and ${totals.after.tokens} tokens, the changes make ${rows} and ${tokens}`,
    );
  }
}
