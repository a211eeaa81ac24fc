import { z } from 'zod';
import { RagError } from '../errors/rag-error.js';
import { notePathProblem, titleFileName } from '../notes/note-path.js';
import { NOTE_READ_MAX_BYTES, NoteReadError, type NoteReadProblem } from '../notes/note-reader.js';
import { NotePlaceError } from '../notes/note-target.js';
import type { NotesEngine } from '../notes/notes-engine.js';
import { SEARCH_MODES, type SearchHit } from '../search/hybrid-search.js';
import {
  checkSearchRequest,
  describeSearchProblem,
  QUERY_MAX_CHARACTERS,
  QUERY_MAX_TERMS,
  SEARCH_DEFAULTS,
  type SearchRequest,
  type SearchRequestFailure,
  TOP_MAX,
  TOP_MIN,
} from '../search/search-request.js';
import { hitSnippet, termPatterns } from '../search/snippet.js';
import { ToolFailure, type ToolPreparation, type ToolRefusal, type ToolRefusalCode } from './tool-errors.js';

/** docs/protocol.md#tools: a note body notes.write takes. */
const MAX_BODY_BYTES = 256 * 1024;

/**
 * A notes tool as both servers serve it (docs/protocol.md#tools): its schemas, a check of the parsed
 * arguments that refuses or prepares the call (run once per call, before the tool runs), the run, and
 * the text block. Transport and authorization are the server's: the protected notes server adds a scope
 * and audit lines, the local stdio server serves it as it is.
 */
export interface NotesToolSpec<In extends z.ZodType, Out extends z.ZodType<Record<string, unknown>>, Ready> {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly input: In;
  readonly output: Out;
  readonly prepare: (args: z.output<In>) => ToolPreparation<Ready>;
  /** Throws ToolFailure for a failure with a fixed text; anything else is a fault. */
  readonly run: (ready: Ready) => Promise<z.output<Out>>;
  readonly text: (result: z.output<Out>) => string;
}

// The search fields and their limits are the search API's (docs/retrieval.md#post-search), checked by its
// one check so that every door says the same.
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

const readInput = z.strictObject({
  vault: z.string().min(1).max(64).describe('The vault, as notes.search hits name it'),
  path: z
    .string()
    .min(1)
    .max(1024)
    .describe('The note inside the vault, as notes.search hits name it, e.g. "projects/plan.md"'),
  line_start: z.number().int().min(1).optional().describe('First line to return (1-based; default 1)'),
  line_end: z.number().int().min(1).optional().describe('Last line to return (inclusive; default the last line)'),
});
const readOutput = z.object({
  vault: z.string(),
  path: z.string(),
  line_start: z.number().int(),
  line_end: z.number().int(),
  total_lines: z.number().int(),
  truncated: z.boolean(),
  text: z.string(),
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

type ReadOutput = z.output<typeof readOutput>;
type WriteInput = z.output<typeof writeInput>;

export interface NotesTools {
  readonly search: NotesToolSpec<typeof searchInput, typeof searchOutput, SearchRequest>;
  readonly read: NotesToolSpec<typeof readInput, typeof readOutput, ReadOutput>;
  /** Absent for an engine that writes no notes. */
  readonly write: NotesToolSpec<typeof writeInput, typeof writeOutput, WriteInput> | undefined;
}

/** notes.search, notes.read and (where the engine has a write vault) notes.write over the notes engine. */
export function notesTools(engine: NotesEngine): NotesTools {
  const writeVault = engine.writeVaultId;
  return {
    search: {
      name: 'notes.search',
      title: 'Search notes',
      description:
        "Searches this server's vaults (BM25 and, where the index has vectors, embeddings, fused) and returns the best passages with their file, lines and a snippet, or with files: true whole notes; tags narrows to notes with a frontmatter tag. notes.read gives a note's text.",
      input: searchInput,
      output: searchOutput,
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
            throw new ToolFailure('ERR_MODEL_UNAVAILABLE', err);
          }
          throw err;
        }
      },
    },
    read: {
      name: 'notes.read',
      title: 'Read a note',
      description:
        `Returns the text of a note of this server's vaults, by vault and path as notes.search hits give them, optionally a line range (line_start, line_end; lines as the hits number them). ` +
        `At most ${NOTE_READ_MAX_BYTES / 1024} KiB per call: a longer range says truncated, and the next call goes on from line_end + 1.`,
      input: readInput,
      output: readOutput,
      prepare: (args) => prepareRead(engine, args),
      text: describeRead,
      run: async (ready) => ready,
    },
    write:
      writeVault === undefined
        ? undefined
        : {
            name: 'notes.write',
            title: 'Write a note',
            description:
              'Writes a markdown note into the vault: a new note named after its title, or the note at path (replaced when it exists). Durable before it answers; searchable with notes.search within 2 s.',
            input: writeInput,
            output: writeOutput,
            prepare: (args) => prepareWrite(engine, args),
            text: (result) => JSON.stringify(result),
            run: async (args) => {
              try {
                const written = await engine.write(args);
                return { vault: writeVault, ...written };
              } catch (err) {
                // Checked when the call was screened; a folder changed since then lands here.
                if (err instanceof NotePlaceError) throw new ToolFailure('ERR_NOTE_PLACE', err);
                // The file system refused (a file where a folder should be, a full disk): the old note stands.
                throw new ToolFailure('ERR_NOTE_NOT_WRITTEN', err);
              }
            },
          },
  };
}

function refuse(code: ToolRefusalCode, detail: string): { readonly refused: ToolRefusal } {
  return { refused: { code, detail } };
}

/** The search request of the arguments, checked once (docs/retrieval.md#post-search), or the tool's refusal. */
function prepareSearch(engine: NotesEngine, args: z.output<typeof searchInput>): ToolPreparation<SearchRequest> {
  const checked = checkSearchRequest(args, engine.searchContext);
  if (!checked.ok) return { refused: searchRefusal(checked) };
  const unavailable = engine.unavailable();
  return unavailable === undefined ? { ready: checked.request } : refuse('ERR_INDEX_UNAVAILABLE', unavailable);
}

/** docs/protocol.md#tools: each problem of a search request as the tool's fixed refusal. */
function searchRefusal(failure: SearchRequestFailure): ToolRefusal {
  const detail = describeSearchProblem(failure);
  if (failure.kind === 'needs_vectors') return { code: 'ERR_NO_VECTORS', detail };
  if (failure.field === 'query') return { code: 'ERR_QUERY_LIMITS', detail };
  // The input schema already refuses what else the check could (a type, a range): the same answer.
  return { code: 'ERR_INVALID_ARGUMENTS', detail };
}

const READ_REFUSALS: Readonly<Record<NoteReadProblem, ToolRefusalCode>> = {
  vault: 'ERR_UNKNOWN_VAULT',
  path: 'ERR_NOTE_PATH',
  missing: 'ERR_NOTE_MISSING',
  range: 'ERR_LINE_RANGE',
  not_text: 'ERR_NOT_TEXT',
};

/** Reads the note when the call is screened: a refusal names what was wrong, and nothing runs after it. */
function prepareRead(engine: NotesEngine, args: z.output<typeof readInput>): ToolPreparation<ReadOutput> {
  try {
    const note = engine.read(args.vault, args.path, { lineStart: args.line_start, lineEnd: args.line_end });
    return {
      ready: {
        vault: args.vault,
        path: note.path,
        line_start: note.lineStart,
        line_end: note.lineEnd,
        total_lines: note.totalLines,
        truncated: note.truncated,
        text: note.text,
      },
    };
  } catch (err) {
    if (err instanceof NoteReadError) return refuse(READ_REFUSALS[err.problem], err.detail);
    throw err;
  }
}

function prepareWrite(engine: NotesEngine, args: WriteInput): ToolPreparation<WriteInput> {
  const bytes = Buffer.byteLength(args.body, 'utf8');
  if (bytes > MAX_BODY_BYTES) return refuse('ERR_NOTE_TOO_LARGE', `${bytes} bytes`);
  if (args.path === undefined) {
    if (titleFileName(args.title) === undefined) return refuse('ERR_NOTE_TITLE', 'no letter or digit in the title');
  } else {
    const problem = notePathProblem(args.path);
    if (problem !== undefined) return refuse('ERR_NOTE_PATH', `path ${problem}`);
    const unplaceable = engine.placeProblem(args.path);
    if (unplaceable !== undefined) return refuse('ERR_NOTE_PATH', unplaceable);
  }
  const unavailable = engine.unavailable();
  return unavailable === undefined ? { ready: args } : refuse('ERR_INDEX_UNAVAILABLE', unavailable);
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

/** The text block: where the text comes from, whether it was cut, then the text itself. */
function describeRead(note: ReadOutput): string {
  const cut = note.truncated
    ? `; cut at ${NOTE_READ_MAX_BYTES / 1024} KiB, go on with line_start ${note.line_end + 1}`
    : '';
  return `${note.vault}/${note.path}:${note.line_start}-${note.line_end} of ${note.total_lines} lines${cut}\n\n${note.text}`;
}
