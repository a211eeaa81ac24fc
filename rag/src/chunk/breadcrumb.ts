import path from 'node:path';
import { withoutMarkdownExtension } from '../walk/vault-path.js';
import type { Block } from './markdown-blocks.js';

/** Recorded in the index fingerprint: changing it re-embeds every file. */
export const BREADCRUMB_FORMAT = 'title > heading trail, newline, text';
const TRAIL_SEPARATOR = ' > ';
const MAX_BREADCRUMB_CHARS = 200;

/** Title from frontmatter, else the first H1, else the file name without extension. */
export function titleOf(frontmatterTitle: string | undefined, blocks: readonly Block[], filePath: string): string {
  if (frontmatterTitle) return frontmatterTitle;
  const h1 = blocks.find((block) => block.kind === 'heading' && block.level === 1 && block.text !== '');
  if (h1?.kind === 'heading') return h1.text;
  return withoutMarkdownExtension(path.posix.basename(filePath));
}

/**
 * `"Setup > Keys"`: the headings in effect. A leading H1 that repeats the
 * title is left out, since the title is shown (and embedded) on its own.
 */
export function headingTrail(stack: readonly { level: number; text: string }[], title: string): string {
  const texts = stack.filter((entry, i) => !(i === 0 && entry.level === 1 && entry.text === title)).map((e) => e.text);
  return texts.join(TRAIL_SEPARATOR);
}

export function breadcrumbOf(title: string, trail: string): string {
  const full = trail === '' ? title : `${title}${TRAIL_SEPARATOR}${trail}`;
  return full.length <= MAX_BREADCRUMB_CHARS ? full : `${full.slice(0, MAX_BREADCRUMB_CHARS - 1)}…`;
}

export function embedTextOf(prefix: string, breadcrumb: string, text: string): string {
  return `${prefix}${breadcrumb}\n${text}`;
}
