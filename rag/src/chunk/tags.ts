/**
 * Frontmatter tags as the search filters them (docs/retrieval.md#tags): one
 * place decides when a note's tag is the tag a search asks for. As in
 * Obsidian, tags ignore case and a leading `#`, and a tag names its nested
 * tags too (`project` finds `project/garden`).
 */

/** A tag as compared: no leading `#`, Unicode NFC, lower case. */
export function normalizeTag(tag: string): string {
  return tag.trim().replace(/^#/, '').normalize('NFC').toLowerCase();
}

/** What is wrong with a tag a search asks for, or undefined: it must hold something and no white space. */
export function tagProblem(tag: string): string | undefined {
  const normalized = normalizeTag(tag);
  if (normalized === '' || normalized.startsWith('/') || normalized.endsWith('/')) {
    return `${JSON.stringify(tag)} is not a tag (such as "recipe" or "project/garden")`;
  }
  if (/\s/u.test(normalized)) return `${JSON.stringify(tag)} is not a tag: a tag has no spaces`;
  return undefined;
}

/** Whether a note tagged `noteTags` has one of `wanted` (normalized), itself or nested below it. */
export function hasAnyTag(noteTags: readonly string[], wanted: readonly string[]): boolean {
  return noteTags.some((raw) => {
    const tag = normalizeTag(raw);
    return wanted.some((w) => tag === w || tag.startsWith(`${w}/`));
  });
}
