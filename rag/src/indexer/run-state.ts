import type { LoopSlices } from '@notegate/kit';
import { chunkSteps } from '../chunk/chunker.js';
import type { ChunkedNote, ChunkerSettings } from '../chunk/types.js';
import type { Embedder } from '../embed/embedder.js';
import type { IndexStore, StoredChunk } from '../store/index-store.js';
import type { SkippedFile } from '../walk/walk-vault.js';
import { EmbedPipeline, type PendingFile } from './embed-pipeline.js';
import type { Candidate, VaultPlan } from './plan.js';
import { readContent, utf8Steps } from './read-content.js';
import type { FailedFile, FileOutcome, FileWarning, IndexProgress, IndexSummary } from './types.js';

export interface RunStateOptions {
  readonly store: IndexStore;
  readonly fingerprint: string;
  readonly settings: ChunkerSettings;
  readonly clock: () => number;
  readonly emit: (event: IndexProgress) => void;
  readonly loadEmbedder: () => Promise<Embedder>;
  readonly batchSize: number;
  readonly windowChunks: number;
  /** The run's slices of the event loop (docs/retrieval.md#index-runs). */
  readonly slices: LoopSlices;
}

interface FileContext {
  readonly candidate: Candidate;
  readonly sha256: string;
}

/**
 * Counters and the per-file steps of one run. Chunking and every change of the index go in slices
 * (docs/retrieval.md#index-runs): a large note never holds the event loop of the process that
 * serves searches while it indexes.
 */
export class RunState {
  readonly vaults: string[] = [];
  private readonly counts = { new: 0, updated: 0, unchanged: 0, removed: 0, chunksEmbedded: 0 };
  private readonly skipped: SkippedFile[] = [];
  private readonly failed: FailedFile[] = [];
  private readonly warnings: FileWarning[] = [];
  private readonly touches: { id: number; mtimeMs: number; sizeBytes: number }[] = [];
  private readonly progress = { filesDone: 0, filesTotal: 0, bytesDone: 0, bytesTotal: 0 };
  private embedder: Promise<Embedder> | undefined;
  private readonly pipeline: EmbedPipeline<FileContext>;

  constructor(private readonly options: RunStateOptions) {
    this.pipeline = new EmbedPipeline<FileContext>(
      {
        embed: async (inputs) => (await this.model()).embedTexts(inputs),
        commit: (file, vectors) => this.commit(file, vectors),
        fail: (file, error) => this.fileFailed(file.context.candidate, error),
        onEmbedded: (chunks) => {
          this.counts.chunksEmbedded += chunks;
        },
      },
      options.batchSize,
      options.windowChunks,
      this.options.slices,
    );
  }

  emit(event: IndexProgress): void {
    this.options.emit(event);
  }

  async removeRows(ids: readonly number[]): Promise<void> {
    await this.options.slices.run(this.options.store.removeFilesSteps(ids));
    this.counts.removed += ids.length;
  }

  async applyPlan(plan: VaultPlan): Promise<void> {
    this.counts.unchanged += plan.unchanged;
    this.skipped.push(...plan.skipped);
    await this.removeRows(plan.removedIds);
  }

  async processCandidates(candidates: readonly Candidate[]): Promise<void> {
    this.progress.filesTotal = candidates.length;
    this.progress.bytesTotal = candidates.reduce((sum, c) => sum + c.file.sizeBytes, 0);
    this.emit({
      kind: 'planned',
      filesToCheck: candidates.length,
      bytesToCheck: this.progress.bytesTotal,
      unchanged: this.counts.unchanged,
      removed: this.counts.removed,
    });
    for (const candidate of candidates) await this.processCandidate(candidate);
    await this.pipeline.flush();
    this.options.store.touchFiles(this.touches);
  }

  summary(
    fields: Pick<IndexSummary, 'indexPath' | 'modelId' | 'lexicalLayout' | 'rebuilt' | 'durationMs'>,
  ): IndexSummary {
    return {
      ...fields,
      vaults: this.vaults,
      ...this.counts,
      skipped: this.skipped,
      failed: this.failed,
      warnings: this.warnings,
    };
  }

  async dispose(): Promise<void> {
    const embedder = this.embedder;
    this.embedder = undefined;
    if (embedder) await (await embedder).dispose();
  }

  private model(): Promise<Embedder> {
    this.embedder ??= this.options.loadEmbedder();
    return this.embedder;
  }

  private async processCandidate(candidate: Candidate): Promise<void> {
    const { file, row } = candidate;
    const content = await readContent(file.realPath, file.sizeBytes, (steps) => this.options.slices.run(steps));
    if (!content.ok) return this.skip(candidate, 'unreadable', content.detail);
    if (row && row.contentSha256 === content.sha256 && row.fingerprint === this.options.fingerprint) {
      this.touches.push({ id: row.id, mtimeMs: file.mtimeMs, sizeBytes: file.sizeBytes });
      this.counts.unchanged += 1;
      return this.done(candidate, 'unchanged');
    }
    const text = await this.options.slices.run(utf8Steps(content.bytes));
    if (text === undefined) return this.skip(candidate, 'not_utf8', 'the file is not valid UTF-8');
    // A model that cannot load fails the run, not each file.
    const embedder = await this.model();
    let note: ChunkedNote;
    try {
      note = await this.options.slices.run(
        chunkSteps(text, file.path, this.options.settings, (t) => embedder.countTokens(t)),
      );
    } catch (err) {
      return this.fileFailed(candidate, err instanceof Error ? err.message : String(err));
    }
    await this.pipeline.add({ note, context: { candidate, sha256: content.sha256 } });
  }

  private async commit(
    pending: PendingFile<FileContext>,
    vectors: readonly (Float32Array | undefined)[],
  ): Promise<void> {
    const { note, context } = pending;
    const { file, row } = context.candidate;
    const chunks: StoredChunk[] = note.chunks.map((chunk, i) => {
      const vector = vectors[i];
      if (!vector) throw new Error(`no vector for chunk ${chunk.seq}`);
      return { ...chunk, vector };
    });
    await this.options.slices.run(
      this.options.store.replaceFileSteps(
        {
          vault: file.vault,
          path: file.path,
          namespace: file.namespace,
          title: note.title,
          aliases: note.aliases,
          tags: note.tags,
          mtimeMs: file.mtimeMs,
          sizeBytes: file.sizeBytes,
          contentSha256: context.sha256,
          fingerprint: this.options.fingerprint,
        },
        chunks,
        this.options.clock(),
      ),
    );
    for (const message of note.warnings) this.warnings.push({ vault: file.vault, path: file.path, message });
    const outcome = row ? 'updated' : 'new';
    this.counts[outcome] += 1;
    this.done(context.candidate, outcome);
  }

  private async skip(candidate: Candidate, reason: SkippedFile['reason'], detail: string): Promise<void> {
    const { file, row } = candidate;
    this.skipped.push({ vault: file.vault, path: file.path, reason, detail });
    if (row) await this.removeRows([row.id]);
    this.done(candidate, 'skipped');
  }

  /** The index keeps what it had for the file (docs/retrieval.md#index-runs). */
  private fileFailed(candidate: Candidate, error: string): void {
    this.failed.push({ vault: candidate.file.vault, path: candidate.file.path, error });
    this.done(candidate, 'failed');
  }

  private done(candidate: Candidate, outcome: FileOutcome): void {
    this.progress.filesDone += 1;
    this.progress.bytesDone += candidate.file.sizeBytes;
    this.emit({
      kind: 'file-done',
      vault: candidate.file.vault,
      path: candidate.file.path,
      outcome,
      ...this.progress,
      chunksEmbedded: this.counts.chunksEmbedded,
    });
  }
}
