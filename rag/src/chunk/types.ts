/** Counts the tokens of a text as the model's tokenizer does, special tokens excluded. */
export type CountTokens = (text: string) => number;

export interface ChunkerSettings {
  /** Hard limit on the embedded input (prefix, breadcrumb and text), special tokens excluded. */
  readonly maxInputTokens: number;
  /** Preferred size of a chunk's embedded input. */
  readonly targetTokens: number;
  /** A section smaller than this is merged with the next one rather than standing alone. */
  readonly minTokens: number;
  /** Prepended to every embedded text (`passage: ` for e5). */
  readonly passagePrefix: string;
}

export interface Chunk {
  /** 0-based position in the note. */
  readonly seq: number;
  /** The heading trail, `"Setup > Keys"`; empty before the first heading. */
  readonly heading: string;
  /** 1-based, inclusive line range in the file. */
  readonly lineStart: number;
  readonly lineEnd: number;
  /** The source text shown to readers and indexed for full-text search. */
  readonly text: string;
  /** What the model embeds: prefix, breadcrumb line, text. */
  readonly embedText: string;
  readonly tokenCount: number;
}

export interface ChunkedNote {
  readonly title: string;
  readonly aliases: readonly string[];
  readonly tags: readonly string[];
  readonly chunks: readonly Chunk[];
  /** Things the reader should know, such as a code fence split because it exceeds the window. */
  readonly warnings: readonly string[];
}
