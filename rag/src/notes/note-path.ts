/**
 * Pure rules for where notes.write puts a note (docs/protocol.md#tools): a
 * relative path of named folders and a markdown file, never leaving the vault
 * and never under a hidden name (the vault walk skips those, so such a note
 * would never be found).
 */
import { describeTerminalControl, firstTerminalControl } from '@notegate/kit';
import { isHiddenName, isMarkdownName, withoutMarkdownExtension } from '../walk/vault-path.js';

/** Longest file or folder name most file systems take (bytes of UTF-8). */
const NAME_MAX_BYTES = 255;
/** Ours: a title becomes at most this many characters of file name. */
const TITLE_NAME_MAX_CHARACTERS = 80;
// Anything but letters, marks, digits, space, '-' and '_' separates the words of a file name.
const NOT_NAME_CHARACTER = /[^\p{L}\p{M}\p{N} _-]+/gu;

/** The path's problem (for the audit line), or undefined when it is a safe relative note path. */
export function notePathProblem(path: string): string | undefined {
  if (path.includes('\\')) return 'contains a backslash';
  if (path.startsWith('/') || /^[A-Za-z]:/.test(path)) return 'is absolute';
  // A name that shows as something else, or that the file system stores as U+FFFD (docs/security.md#vault-folders-and-notes).
  const unshowable = firstTerminalControl(path);
  if (unshowable !== undefined) return `contains ${describeTerminalControl(unshowable)}`;
  const segments = path.split('/');
  for (const segment of segments) {
    if (segment === '') return 'has an empty segment';
    if (segment === '..' || segment === '.') return `has a '${segment}' segment`;
    if (isHiddenName(segment)) return 'has a hidden segment';
    if (Buffer.byteLength(segment, 'utf8') > NAME_MAX_BYTES) return `has a segment over ${NAME_MAX_BYTES} bytes`;
  }
  if (!isMarkdownName(path)) return 'does not end in .md or .markdown';
  return undefined;
}

/**
 * The file name a title gives: NFKC-normalized, every run of other
 * characters than letters, digits, space, '-' and '_' made one space, trimmed,
 * at most 80 characters, then `.md`. Undefined when nothing is left (a title
 * of punctuation only).
 */
export function titleFileName(title: string): string | undefined {
  const words = title.normalize('NFKC').replace(NOT_NAME_CHARACTER, ' ').replace(/\s+/gu, ' ');
  const trimmed = [...words.replace(/^[\s_-]+|[\s_-]+$/gu, '')].slice(0, TITLE_NAME_MAX_CHARACTERS).join('').trimEnd();
  return /[\p{L}\p{N}]/u.test(trimmed) ? `${trimmed}.md` : undefined;
}

/** `Name.md`, `Name 2.md`, `Name 3.md`, … : the candidates for a new note of that name. */
export function numberedName(fileName: string, n: number): string {
  if (n <= 1) return fileName;
  const stem = withoutMarkdownExtension(fileName);
  return `${stem} ${n}${fileName.slice(stem.length)}`;
}
