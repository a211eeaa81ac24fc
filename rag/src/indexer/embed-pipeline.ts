import type { LoopSlices } from '@notegate/kit';
import type { ChunkedNote } from '../chunk/types.js';
import { planBatches } from './batches.js';

export interface PendingFile<T> {
  readonly note: ChunkedNote;
  readonly context: T;
}

export interface PipelineHooks<T> {
  readonly embed: (inputs: readonly string[]) => Promise<Float32Array[]>;
  /** Stores one file (its own transaction); a rejection counts as that file failing. */
  readonly commit: (file: PendingFile<T>, vectors: readonly (Float32Array | undefined)[]) => Promise<void>;
  readonly fail: (file: PendingFile<T>, error: string) => void;
  readonly onEmbedded: (chunks: number) => void;
}

/**
 * Embeds the chunks of several files together, in batches of similar length,
 * then commits each file once all its vectors exist. Nothing is written while
 * the model runs (docs/retrieval.md#index-runs), and a file whose embedding fails is
 * reported without touching what the index holds for it.
 */
export class EmbedPipeline<T> {
  private pending: PendingFile<T>[] = [];
  private pendingChunks = 0;

  constructor(
    private readonly hooks: PipelineHooks<T>,
    private readonly batchSize: number,
    private readonly windowChunks: number,
    /** Between batches the event loop gets a turn when a slice is used up (an embedder may answer without one). */
    private readonly slices: LoopSlices,
  ) {}

  async add(file: PendingFile<T>): Promise<void> {
    this.pending.push(file);
    this.pendingChunks += file.note.chunks.length;
    if (this.pendingChunks >= this.windowChunks) await this.flush();
  }

  async flush(): Promise<void> {
    const files = this.pending;
    this.pending = [];
    this.pendingChunks = 0;
    const items = files.flatMap((file, fileIndex) => file.note.chunks.map((chunk) => ({ fileIndex, chunk })));
    const vectors: (Float32Array | undefined)[] = new Array(items.length);
    const errors = new Map<number, string>();
    for (const batch of planBatches(
      items.map((item) => item.chunk.tokenCount),
      this.batchSize,
    )) {
      const live = batch.filter((i) => !errors.has(items[i]?.fileIndex ?? -1));
      await this.embedBatch(live, items, vectors, errors);
      this.hooks.onEmbedded(live.length);
      if (this.slices.due) await this.slices.pause();
    }
    let offset = 0;
    for (const [fileIndex, file] of files.entries()) {
      const own = vectors.slice(offset, offset + file.note.chunks.length);
      offset += file.note.chunks.length;
      const error = errors.get(fileIndex);
      if (error !== undefined) {
        this.hooks.fail(file, error);
        continue;
      }
      try {
        await this.hooks.commit(file, own);
      } catch (err) {
        this.hooks.fail(file, describe(err));
      }
    }
  }

  /** One batch; when it fails, each input alone, so one bad file does not fail its batch-mates. */
  private async embedBatch(
    batch: readonly number[],
    items: readonly { fileIndex: number; chunk: { embedText: string } }[],
    vectors: (Float32Array | undefined)[],
    errors: Map<number, string>,
  ): Promise<void> {
    const texts = batch.map((i) => items[i]?.chunk.embedText ?? '');
    try {
      const out = await this.hooks.embed(texts);
      batch.forEach((itemIndex, j) => {
        vectors[itemIndex] = out[j];
      });
      return;
    } catch (err) {
      if (batch.length === 1) {
        errors.set(items[batch[0] ?? -1]?.fileIndex ?? -1, `embedding failed: ${describe(err)}`);
        return;
      }
    }
    for (const itemIndex of batch) await this.embedBatch([itemIndex], items, vectors, errors);
  }
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
