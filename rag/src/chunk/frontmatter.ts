import { isRecord } from '@notegate/kit';
import { parse } from 'yaml';

export interface Frontmatter {
  readonly title: string | undefined;
  readonly aliases: readonly string[];
  readonly tags: readonly string[];
  /** Number of lines the frontmatter block occupies (0 when there is none). */
  readonly lineCount: number;
}

const OPEN = /^---[ \t]*$/;
const CLOSE = /^(?:---|\.\.\.)[ \t]*$/;

/**
 * Finds a YAML frontmatter block (first line `---`, closed by `---` or `...`)
 * and reads title, aliases and tags from it. The block is never embedded
 * (docs/retrieval.md#chunking); YAML that does not parse still counts as frontmatter.
 */
export function parseFrontmatter(lines: readonly string[]): Frontmatter {
  const none: Frontmatter = { title: undefined, aliases: [], tags: [], lineCount: 0 };
  if (lines.length === 0 || !OPEN.test(lines[0] ?? '')) return none;
  const close = lines.findIndex((line, i) => i > 0 && CLOSE.test(line));
  if (close === -1) return none;
  const data = safeParse(lines.slice(1, close).join('\n'));
  return {
    title: stringValue(data.title),
    aliases: stringList(data.aliases),
    tags: stringList(data.tags).map((tag) => tag.replace(/^#/, '')),
    lineCount: close + 1,
  };
}

function safeParse(yaml: string): Record<string, unknown> {
  try {
    const value: unknown = parse(yaml);
    return isRecord(value) ? { ...value } : {};
  } catch {
    return {};
  }
}

function stringValue(value: unknown): string | undefined {
  if (typeof value === 'number') return String(value);
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

function stringList(value: unknown): string[] {
  if (typeof value === 'string') return value.split(/[,\s]+/).filter((item) => item !== '');
  if (!Array.isArray(value)) return [];
  return value.flatMap((item) => stringValue(item) ?? []);
}
