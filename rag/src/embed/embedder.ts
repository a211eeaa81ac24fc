import type { ModelSpec } from '../config/models.js';

/** The model as the indexer and the search server use it. */
export interface Embedder {
  readonly model: ModelSpec;
  /** Tokens of a text as the model's tokenizer counts them, special tokens excluded. */
  countTokens(text: string): number;
  /**
   * One L2-normalized vector per input, in order. Inputs are complete model
   * inputs: the passage prefix is already part of them (see `chunkNote`).
   */
  embedTexts(inputs: readonly string[]): Promise<Float32Array[]>;
  /** The vector of a search query; adds the model's query prefix (`query: ` for e5). */
  embedQuery(query: string): Promise<Float32Array>;
  dispose(): Promise<void>;
}

/** Special tokens around every input ([CLS]/[SEP] for BERT, <s>/</s> for XLM-R). */
export const SPECIAL_TOKENS_PER_INPUT = 2;

/** The largest input, in tokens without special tokens, that the model reads whole. */
export function maxInputTokens(model: ModelSpec): number {
  return model.windowTokens - SPECIAL_TOKENS_PER_INPUT;
}
