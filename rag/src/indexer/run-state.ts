import { chunkNote } from '../chunk/chunker.js';
import type { ChunkerSettings } from '../chunk/types.js';
import type { Embedder } from '../embed/embedder.js';
import type { IndexStore, StoredChunk } from '../store/index-store.js';
import type { SkippedFile } from '../walk/walk-vault.js';
import { EmbedPipeline, type PendingFile } from './embed-pipeline.js';
import type { Candidate, VaultPlan } from './plan.js';
import { decodeUtf8, readContent } from './read-content.js';
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
}

interface FileContext {
  readonly candidate: Candidate;
  readonly sha256: string;
}

/** Counters and the per-file steps of one run. */
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
    );
  }

  emit(event: IndexProgress): void {
    this.options.emit(event);
  }

  removeRows(ids: readonly number[]): void {
    this.options.store.removeFiles(ids);
    this.counts.removed += ids.length;
  }

  applyPlan(plan: VaultPlan): void {
    this.counts.unchanged += plan.unchanged;
    this.skipped.push(...plan.skipped);
    this.removeRows(plan.removedIds);
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
    const content = readContent(file.realPath);
    if (!content.ok) return this.skip(candidate, 'unreadable', content.detail);
    if (row && row.contentSha256 === content.sha256 && row.fingerprint === this.options.fingerprint) {
      this.touches.push({ id: row.id, mtimeMs: file.mtimeMs, sizeBytes: file.sizeBytes });
      this.counts.unchanged += 1;
      return this.done(candidate, 'unchanged');
    }
    const text = decodeUtf8(content.bytes);
    if (text === undefined) return this.skip(candidate, 'not_utf8', 'the file is not valid UTF-8');
    // A model that cannot load fails the run, not each file.
    const embedder = await this.model();
    let note: ReturnType<typeof chunkNote>;
    try {
      note = chunkNote(text, file.path, this.options.settings, (t) => embedder.countTokens(t));
    } catch (err) {
      return this.fileFailed(candidate, err instanceof Error ? err.message : String(err));
    }
    await this.pipeline.add({ note, context: { candidate, sha256: content.sha256 } });
  }

  private commit(pending: PendingFile<FileContext>, vectors: readonly (Float32Array | undefined)[]): void {
    const { note, context } = pending;
    const { file, row } = context.candidate;
    const chunks: StoredChunk[] = note.chunks.map((chunk, i) => {
      const vector = vectors[i];
      if (!vector) throw new Error(`no vector for chunk ${chunk.seq}`);
      return { ...chunk, vector };
    });
    this.options.store.replaceFile(
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
    );
    for (const message of note.warnings) this.warnings.push({ vault: file.vault, path: file.path, message });
    const outcome = row ? 'updated' : 'new';
    this.counts[outcome] += 1;
    this.done(context.candidate, outcome);
  }

  private skip(candidate: Candidate, reason: SkippedFile['reason'], detail: string): void {
    const { file, row } = candidate;
    this.skipped.push({ vault: file.vault, path: file.path, reason, detail });
    if (row) this.removeRows([row.id]);
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
