import type { ModelSpec } from '../config/models.js';
import { maxInputTokens } from '../embed/embedder.js';
import type { ChunkerSettings } from './types.js';

/** Bumped whenever chunking changes what gets embedded; part of the index fingerprint. */
export const CHUNKER_VERSION = 1;

/**
 * Chunks aim at three quarters of the window (e5: 384 of 512 tokens, the
 * ~350–400 docs/retrieval.md#chunking explains; MiniLM: 192 of 256) and may grow to
 * the whole window to keep a section or code fence whole. Only sections under
 * an eighth of the target (a line or two) merge with the next one, so most
 * chunks keep the heading they were written under.
 */
export function chunkerSettingsFor(model: ModelSpec): ChunkerSettings {
  const target = Math.floor(model.windowTokens * 0.75);
  return {
    maxInputTokens: maxInputTokens(model),
    targetTokens: target,
    minTokens: Math.floor(target / 8),
    passagePrefix: model.passagePrefix,
  };
}
