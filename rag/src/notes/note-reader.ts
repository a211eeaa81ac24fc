import { readFileSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import { MAX_FILE_BYTES } from '../indexer/plan.js';
import { decodeUtf8 } from '../indexer/read-content.js';
import { notePathProblem } from './note-path.js';

/**
 * Ours: notes.read returns at most this many bytes of UTF-8 text; a longer range ends at the last whole
 * line that fits, and the answer says it was cut (docs/protocol.md#tools).
 */
export const NOTE_READ_MAX_BYTES = 64 * 1024;

/**
 * Why a note cannot be read: a vault the reader does not serve, a path that names no note inside the vault,
 * no file there, a range outside it, not text.
 */
export type NoteReadProblem = 'vault' | 'path' | 'missing' | 'range' | 'not_text';

export class NoteReadError extends Error {
  constructor(
    readonly problem: NoteReadProblem,
    readonly detail: string,
  ) {
    super(detail);
    this.name = 'NoteReadError';
  }
}

/** 1-based, inclusive; absent ends are the note's first and last line. */
export interface LineRange {
  readonly lineStart?: number | undefined;
  readonly lineEnd?: number | undefined;
}

export interface NoteText {
  readonly path: string;
  /** The lines read, joined by `\n` (line breaks as the chunker counts them: `\r\n`, `\r` or `\n`). */
  readonly text: string;
  readonly lineStart: number;
  /** The last line returned: the range's end, the note's last line, or the last whole line under the cap. */
  readonly lineEnd: number;
  readonly totalLines: number;
  /** The range went on past `lineEnd`, but the answer reached its byte cap. */
  readonly truncated: boolean;
}

/**
 * Reads a note of a vault by its relative path (docs/protocol.md#tools: notes.read): the same path rules as
 * notes.write (no `..`, no hidden segment, a markdown name); the file's real path must lie inside the vault's
 * (a symlink out is refused, as the vault walk skips it) and be a regular file of at most 8 MiB of UTF-8 (what
 * the indexer takes). Lines are numbered as the search hits number them.
 */
export function readNote(
  vaultRealPath: string,
  notePath: string,
  range: LineRange,
  maxBytes = NOTE_READ_MAX_BYTES,
): NoteText {
  const problem = notePathProblem(notePath);
  if (problem !== undefined) throw new NoteReadError('path', `path ${problem}`);
  const content = readText(vaultRealPath, notePath);
  const lines = content.split(/\r\n|\r|\n/);
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  const totalLines = content === '' ? 0 : lines.length;
  const lineStart = range.lineStart ?? 1;
  const lastAsked = Math.min(range.lineEnd ?? totalLines, totalLines);
  if (range.lineEnd !== undefined && range.lineEnd < lineStart) {
    throw new NoteReadError('range', `line_end ${range.lineEnd} is before line_start ${lineStart}`);
  }
  if (lineStart > Math.max(totalLines, 1)) {
    throw new NoteReadError('range', `line_start ${lineStart} is past the note's ${totalLines} lines`);
  }
  let bytes = 0;
  let lineEnd = lineStart - 1;
  while (lineEnd < lastAsked) {
    // Every line after the first costs its line break too.
    const cost = Buffer.byteLength(lines[lineEnd] ?? '', 'utf8') + (lineEnd >= lineStart ? 1 : 0);
    if (bytes + cost > maxBytes) break;
    bytes += cost;
    lineEnd += 1;
  }
  const truncated = lineEnd < lastAsked;
  if (truncated && lineEnd < lineStart) {
    // A first line longer than the cap is cut at a character boundary rather than returned empty.
    const text = cutToBytes(lines[lineStart - 1] ?? '', maxBytes);
    return { path: notePath, text, lineStart, lineEnd: lineStart, totalLines, truncated };
  }
  const text = lines.slice(lineStart - 1, lineEnd).join('\n');
  return { path: notePath, text, lineStart, lineEnd, totalLines, truncated };
}

function readText(vaultRealPath: string, notePath: string): string {
  const absolute = join(vaultRealPath, ...notePath.split('/'));
  let real: string;
  try {
    real = realpathSync(absolute);
  } catch {
    throw new NoteReadError('missing', `no file at ${notePath}`);
  }
  const rel = relative(vaultRealPath, real);
  if (rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) {
    throw new NoteReadError('path', `${notePath} resolves to ${real}, outside the vault ${vaultRealPath}`);
  }
  const stats = statSync(real);
  if (!stats.isFile()) throw new NoteReadError('path', `${notePath} is not a regular file`);
  if (stats.size > MAX_FILE_BYTES) {
    throw new NoteReadError(
      'not_text',
      `${notePath} is ${stats.size} bytes, over the ${MAX_FILE_BYTES} the indexer takes`,
    );
  }
  const text = decodeUtf8(readFileSync(real));
  if (text === undefined) throw new NoteReadError('not_text', `${notePath} is not valid UTF-8`);
  return text;
}

/** The longest prefix of `text` of at most `maxBytes` bytes of UTF-8 that ends on a code point. */
function cutToBytes(text: string, maxBytes: number): string {
  let bytes = 0;
  let out = '';
  for (const character of text) {
    bytes += Buffer.byteLength(character, 'utf8');
    if (bytes > maxBytes) break;
    out += character;
  }
  return out;
}
