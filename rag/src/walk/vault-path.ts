/** Pure rules for paths inside a vault. */

const MARKDOWN_EXTENSIONS = ['.md', '.markdown'];

export function isMarkdownName(name: string): boolean {
  const lower = name.toLowerCase();
  return MARKDOWN_EXTENSIONS.some((ext) => lower.endsWith(ext) && lower.length > ext.length);
}

/** The name without its markdown extension (any case); other names unchanged. */
export function withoutMarkdownExtension(name: string): string {
  const lower = name.toLowerCase();
  const ext = MARKDOWN_EXTENSIONS.find((e) => lower.endsWith(e));
  return ext === undefined ? name : name.slice(0, -ext.length);
}

/** Hidden entries (`.obsidian`, `.git`, `.trash`, `.DS_Store`) are never walked. */
export function isHiddenName(name: string): boolean {
  return name.startsWith('.');
}

/** docs/retrieval.md#post-search: the namespace is the top-level folder, `""` at the vault root. */
export function namespaceOf(relativePath: string): string {
  const slash = relativePath.indexOf('/');
  return slash === -1 ? '' : relativePath.slice(0, slash);
}

export function joinRelative(parent: string, name: string): string {
  return parent === '' ? name : `${parent}/${name}`;
}
