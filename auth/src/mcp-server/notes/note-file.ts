import { parse, stringify } from 'yaml';

/** A note as stored: one markdown file with a YAML front matter block. */
export interface Note {
  readonly id: string;
  readonly title: string;
  readonly body: string;
  /** ISO 8601 UTC with milliseconds. */
  readonly updatedAt: string;
}

const FRONT_MATTER = /^---\r?\n([\s\S]*?)\r?\n---(?:\r?\n|$)/;

/** The file content of a note: front matter (title, updated_at) then the markdown body. */
export function formatNoteFile(note: Omit<Note, 'id'>): string {
  return `---\n${stringify({ title: note.title, updated_at: note.updatedAt }).trimEnd()}\n---\n${note.body}`;
}

/**
 * Reads a note file leniently, because other tools may write the directory
 * too: without front matter (or with a broken one) the title is the first
 * markdown heading, else the id, and `updated_at` falls back to the file's
 * modification time.
 */
export function parseNoteFile(id: string, content: string, modifiedMs: number): Note {
  const fallbackUpdatedAt = new Date(modifiedMs).toISOString();
  const block = FRONT_MATTER.exec(content);
  const meta = block ? readFrontMatter(block[1] ?? '') : {};
  const body = block ? content.slice(block[0].length) : content;
  return {
    id,
    title: meta.title ?? firstHeading(body) ?? id,
    body,
    updatedAt: meta.updatedAt ?? fallbackUpdatedAt,
  };
}

function readFrontMatter(yaml: string): { title?: string; updatedAt?: string } {
  let parsed: unknown;
  try {
    parsed = parse(yaml);
  } catch {
    return {};
  }
  if (typeof parsed !== 'object' || parsed === null) return {};
  const title = 'title' in parsed && typeof parsed.title === 'string' ? parsed.title : undefined;
  const updated = 'updated_at' in parsed ? parsed.updated_at : undefined;
  const updatedAt = typeof updated === 'string' && !Number.isNaN(Date.parse(updated)) ? updated : undefined;
  return { ...(title !== undefined && { title }), ...(updatedAt !== undefined && { updatedAt }) };
}

function firstHeading(body: string): string | undefined {
  return /^#{1,6}[ \t]+(.+?)[ \t#]*$/m.exec(body)?.[1];
}
