import type { LexicalLayout } from '../store/schema.js';
import type { SkippedFile } from '../walk/walk-vault.js';

export type FileOutcome = 'new' | 'updated' | 'unchanged' | 'skipped' | 'failed';

export interface FailedFile {
  readonly vault: string;
  readonly path: string;
  readonly error: string;
}

export interface FileWarning {
  readonly vault: string;
  readonly path: string;
  readonly message: string;
}

/** The result of one `index` run. */
export interface IndexSummary {
  readonly indexPath: string;
  readonly modelId: string;
  readonly lexicalLayout: LexicalLayout;
  readonly vaults: readonly string[];
  readonly rebuilt: boolean;
  readonly new: number;
  readonly updated: number;
  readonly unchanged: number;
  readonly removed: number;
  readonly skipped: readonly SkippedFile[];
  readonly failed: readonly FailedFile[];
  readonly warnings: readonly FileWarning[];
  readonly chunksEmbedded: number;
  readonly durationMs: number;
}

/** Progress reported by the library; only the CLI decides how (and whether) to show it. */
export type IndexProgress =
  | { readonly kind: 'model-download'; readonly file: string; readonly url: string }
  | {
      readonly kind: 'model-download-progress';
      readonly file: string;
      readonly bytesDone: number;
      /** From the response's Content-Length; undefined when the hub sends none. */
      readonly bytesTotal: number | undefined;
    }
  | { readonly kind: 'model-loading'; readonly modelId: string }
  | {
      readonly kind: 'scanned';
      readonly vault: string;
      readonly files: number;
      /**
       * Notes and folders reached through a symlink (their notes have two
       * paths; docs/retrieval.md#following-the-vaults); only from a walk of the whole vault.
       */
      readonly links?: number;
    }
  | {
      readonly kind: 'planned';
      /** Files whose mtime, size or fingerprint changed: they are read, hashed and maybe embedded. */
      readonly filesToCheck: number;
      readonly bytesToCheck: number;
      readonly unchanged: number;
      readonly removed: number;
    }
  | {
      readonly kind: 'file-done';
      readonly vault: string;
      readonly path: string;
      readonly outcome: FileOutcome;
      readonly filesDone: number;
      readonly filesTotal: number;
      readonly bytesDone: number;
      readonly bytesTotal: number;
      readonly chunksEmbedded: number;
    };
