import { z } from 'zod';
import { NOTES_READ_SCOPE, NOTES_WRITE_SCOPE } from '../../oauth/notes-scopes.js';
import { NOTE_ID_PATTERN } from '../notes/note-id.js';
import { type NotesStore, UnknownNoteError } from '../notes/notes-store.js';
import { defineTool, ToolFailure } from './define-tool.js';
import type { ToolRegistration } from './tool-catalog.js';

export const MAX_BODY_BYTES = 256 * 1024;

// docs/protocol.md#tools: the two tools' input and output schemas.
const searchInput = z.strictObject({
  query: z.string().min(1).max(1000).describe('Words to look for in note titles and bodies'),
  limit: z.number().int().min(1).max(50).default(10).describe('Maximum number of results'),
});
const searchOutput = z.object({
  results: z.array(
    z.object({
      id: z.string(),
      title: z.string(),
      snippet: z.string(),
      score: z.number(),
      updated_at: z.string(),
    }),
  ),
});
const writeInput = z.strictObject({
  title: z.string().min(1).max(200),
  body: z
    .string()
    .max(MAX_BODY_BYTES)
    .refine((body) => Buffer.byteLength(body, 'utf8') <= MAX_BODY_BYTES, 'body must be at most 256 KiB of UTF-8'),
  id: z
    .string()
    .regex(NOTE_ID_PATTERN, 'id must be the id of an existing note')
    .optional()
    .describe('Replace this note'),
});
const writeOutput = z.object({ id: z.string(), created: z.boolean(), updated_at: z.string() });

/** notes.search (notes:read) and notes.write (notes:write) over one notes store. */
export function notesTools(store: NotesStore, onFault: (tool: string, err: unknown) => void): ToolRegistration[] {
  return [
    defineTool({
      name: 'notes.search',
      scope: NOTES_READ_SCOPE,
      title: 'Search notes',
      description: 'Ranks the notes by relevance (BM25 over title and body) and returns snippets around the matches.',
      input: searchInput,
      output: searchOutput,
      onFault,
      run: async ({ query, limit }) => {
        const hits = await store.search(query, limit);
        return {
          results: hits.map((hit) => ({
            id: hit.id,
            title: hit.title,
            snippet: hit.snippet,
            score: hit.score,
            updated_at: hit.updatedAt,
          })),
        };
      },
    }),
    defineTool({
      name: 'notes.write',
      scope: NOTES_WRITE_SCOPE,
      title: 'Write a note',
      description: 'Creates a markdown note, or replaces the note with the given id. Writes are atomic.',
      input: writeInput,
      output: writeOutput,
      onFault,
      run: async ({ title, body, id }) => {
        try {
          const written = await store.write({ title, body, id });
          return { id: written.id, created: written.created, updated_at: written.updatedAt };
        } catch (err) {
          if (err instanceof UnknownNoteError) throw new ToolFailure('No note has this id');
          throw err;
        }
      },
    }),
  ];
}
