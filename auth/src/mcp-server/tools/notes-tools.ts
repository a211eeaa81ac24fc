import {
  checkSearchRequest,
  describeSearchProblem,
  hitSnippet,
  NotePlaceError,
  type NotesEngine,
  notePathProblem,
  QUERY_MAX_CHARACTERS,
  QUERY_MAX_TERMS,
  RagError,
  SEARCH_DEFAULTS,
  SEARCH_MODES,
  type SearchHit,
  type SearchRequest,
  type SearchRequestFailure,
  TOP_MAX,
  TOP_MIN,
  termPatterns,
  titleFileName,
} from '@notegate/rag';
import { z } from 'zod';
import { requestError } from '../../errors/mcp-request-errors.js';
import type { ProtocolError } from '../../errors/protocol-error.js';
import { toolError } from '../../errors/tool-errors.js';
import { NOTES_READ_SCOPE, NOTES_WRITE_SCOPE } from '../../oauth/notes-scopes.js';
import { defineTool, type Preparation, ToolFailure } from './define-tool.js';
import type { ToolRegistration } from './tool-catalog.js';

const MAX_BODY_BYTES = 256 * 1024;

// docs/protocol.md#tools: the two tools' input and output schemas. The search fields and their limits
// are the search API's (docs/retrieval.md#post-search), checked by its one check so that both say the same.
const searchInput = z.strictObject({
  query: z
    .string()
    .min(1)
    .describe(
      `What to look for: words, a phrase or an identifier (at most ${QUERY_MAX_CHARACTERS} characters and ${QUERY_MAX_TERMS} words)`,
    ),
  top: z.number().int().min(TOP_MIN).max(TOP_MAX).default(SEARCH_DEFAULTS.top).describe('Number of hits'),
  mode: z
    .enum(SEARCH_MODES)
    .optional()
    .describe('hybrid (default where the index has vectors), dense, or lexical (the only one on a lexical-only index)'),
  namespaces: z.array(z.string()).min(1).optional().describe('Only these top-level folders ("" is the vault root)'),
  tags: z
    .array(z.string())
    .min(1)
    .optional()
    .describe(
      'Only notes with one of these frontmatter tags, or a tag nested below one (project finds project/garden)',
    ),
  files: z
    .boolean()
    .optional()
    .describe('Whole notes instead of passages: each note once, its whole text in text, its line range the whole note'),
});
const hit = z.object({
  vault: z.string(),
  path: z.string(),
  title: z.string(),
  heading: z.string(),
  line_start: z.number().int(),
  line_end: z.number().int(),
  snippet: z.string(),
  /** The whole note's text, with files: true. */
  text: z.string().optional(),
  score: z.number(),
});
const searchOutput = z.object({
  hits: z.array(hit),
  /** Query words taken for typos, and the words searched instead (docs/retrieval.md#typos). */
  corrections: z.array(z.object({ from: z.string(), to: z.string() })),
});
const writeInput = z.strictObject({
  title: z.string().min(1).max(200).describe('The note title (front matter); also its file name when no path is given'),
  body: z.string().describe('Markdown, at most 256 KiB'),
  path: z
    .string()
    .min(1)
    .max(1024)
    .optional()
    .describe('Where in the vault, e.g. "projects/plan.md"; an existing note there is replaced'),
});
const writeOutput = z.object({
  vault: z.string(),
  path: z.string(),
  created: z.boolean(),
  bytes: z.number().int(),
  indexed: z.boolean(),
});

type SearchInput = z.output<typeof searchInput>;
type WriteInput = z.output<typeof writeInput>;

/** notes.search (notes:read) and notes.write (notes:write) over the notes engine. */
export function notesTools(engine: NotesEngine, onFault: (tool: string, err: unknown) => void): ToolRegistration[] {
  return [
    defineTool({
      name: 'notes.search',
      scope: NOTES_READ_SCOPE,
      title: 'Search notes',
      description:
        "Searches this server's vaults (BM25 and, where the index has vectors, embeddings fused by rank) and returns the best passages with their file, lines and a snippet.",
      input: searchInput,
      output: searchOutput,
      onFault,
      prepare: (args) => prepareSearch(engine, args),
      text: (result) => describeHits(result.hits),
      run: async (request) => {
        try {
          const { hits, corrections } = await engine.search(request);
          const patterns = termPatterns(request.query, corrections);
          return {
            hits: hits.map((found) => hitJson(found, patterns, request.files === true)),
            corrections: [...corrections],
          };
        } catch (err) {
          if (err instanceof RagError && err.code === 'ERR_MODEL_UNAVAILABLE') {
            onFault('notes.search', err);
            throw new ToolFailure('The embedding model is not available; search with mode lexical');
          }
          throw err;
        }
      },
    }),
    defineTool({
      name: 'notes.write',
      scope: NOTES_WRITE_SCOPE,
      title: 'Write a note',
      description:
        'Writes a markdown note into the vault: a new note named after its title, or the note at path (replaced when it exists). Durable before it answers; searchable with notes.search within 2 s.',
      input: writeInput,
      output: writeOutput,
      onFault,
      prepare: (args) => prepareWrite(engine, args),
      run: async (args) => {
        try {
          const written = await engine.write(args);
          return { vault: engine.writeVaultId, ...written };
        } catch (err) {
          // Checked when the call was screened; a folder changed since then lands here.
          onFault('notes.write', err);
          if (err instanceof NotePlaceError) throw new ToolFailure(toolError('ERR_NOTE_PATH').description);
          // The file system refused (a file where a folder should be, a full disk): the old note stands.
          throw new ToolFailure('The note could not be written; nothing was changed');
        }
      },
    }),
  ];
}

/** The search request of the arguments, checked once (docs/retrieval.md#post-search), or the tool's refusal. */
function prepareSearch(engine: NotesEngine, args: SearchInput): Preparation<SearchRequest> {
  const checked = checkSearchRequest(args, engine.searchContext);
  if (!checked.ok) return { refused: searchRefusal(checked) };
  const unavailable = engine.unavailable();
  return unavailable === undefined
    ? { ready: checked.request }
    : { refused: toolError('ERR_INDEX_UNAVAILABLE', unavailable) };
}

/** docs/protocol.md#tools: each problem of a search request as the tool's fixed refusal, the problem audited. */
function searchRefusal(failure: SearchRequestFailure): ProtocolError {
  const detail = describeSearchProblem(failure);
  if (failure.kind === 'needs_vectors') return toolError('ERR_NO_VECTORS', detail);
  if (failure.field === 'query') return toolError('ERR_QUERY_LIMITS', detail);
  // The input schema already refuses what else the check could (a type, a range): the same answer.
  return requestError('ERR_INVALID_ARGUMENTS', detail);
}

function prepareWrite(engine: NotesEngine, args: WriteInput): Preparation<WriteInput> {
  const refused = writeRefusal(engine, args);
  return refused ? { refused } : { ready: args };
}

function writeRefusal(engine: NotesEngine, args: WriteInput): ProtocolError | undefined {
  const bytes = Buffer.byteLength(args.body, 'utf8');
  if (bytes > MAX_BODY_BYTES) return toolError('ERR_NOTE_TOO_LARGE', `${bytes} bytes`);
  if (args.path === undefined) {
    if (titleFileName(args.title) === undefined) return toolError('ERR_NOTE_TITLE', 'no letter or digit in the title');
  } else {
    const problem = notePathProblem(args.path);
    if (problem !== undefined) return toolError('ERR_NOTE_PATH', `path ${problem}`);
    const unplaceable = engine.placeProblem(args.path);
    if (unplaceable !== undefined) return toolError('ERR_NOTE_PATH', unplaceable);
  }
  const unavailable = engine.unavailable();
  return unavailable === undefined ? undefined : toolError('ERR_INDEX_UNAVAILABLE', unavailable);
}

function hitJson(found: SearchHit, patterns: readonly RegExp[], wholeNote: boolean): z.output<typeof hit> {
  return {
    vault: found.vault,
    path: found.path,
    title: found.title,
    heading: found.heading,
    line_start: found.lineStart,
    line_end: found.lineEnd,
    snippet: hitSnippet(found.text, patterns).text,
    ...(wholeNote && { text: found.text }),
    score: found.score,
  };
}

/** The text block: one numbered line per hit naming its file and lines, then its snippet. */
function describeHits(hits: readonly z.output<typeof hit>[]): string {
  // The whole notes of files: true are in the structured content; the text block names them.
  if (hits.length === 0) return 'No notes matched.';
  return hits
    .map((found, i) => {
      const where = `${found.vault}/${found.path}:${found.line_start}-${found.line_end}`;
      const heading = found.heading === '' ? found.title : `${found.title} > ${found.heading}`;
      return `${i + 1}. ${where}  ${heading}\n   ${found.snippet}`;
    })
    .join('\n');
}
