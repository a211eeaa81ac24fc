import { lexicalIndexText } from '../lexical/index-text.js';
import type { ChunkText } from './load-vectors.js';
import type { LexicalLayout } from './schema.js';

/**
 * What the word table is given for a chunk, column by column (title field,
 * heading, body; docs/retrieval.md#index-format): in the full layout the store
 * rewrites each field (scripts without spaces as n-grams), in the fallback
 * layout the trigger copies the fields as they are. The writer and the
 * in-memory word index (which tokenizes the same text) both ask here.
 */
export function wordTableColumns(layout: LexicalLayout, text: ChunkText): [string, string, string] {
  return layout === 'words+trigram'
    ? [lexicalIndexText(text.title), lexicalIndexText(text.heading), lexicalIndexText(text.body)]
    : [text.title, text.heading, text.body];
}
