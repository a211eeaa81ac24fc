/**
 * The config's `exclude` globs (docs/retrieval.md#excluding-notes): which files
 * and folders of a vault the walk leaves out. A pure compiler from glob to
 * regular expression, so that a malformed glob is found when the config is
 * loaded, named, and never half-applied.
 */

/** The files and folders of a vault that are not indexed. */
export interface ExcludeRules {
  /** The globs as written, for messages. */
  readonly globs: readonly string[];
  /** Whether the entry at this vault-relative, `/`-separated path is excluded (a folder: with all it holds). */
  matches(relativePath: string, isFolder: boolean): boolean;
}

interface CompiledGlob {
  readonly pattern: RegExp;
  readonly foldersOnly: boolean;
}

export type GlobCheck =
  | { readonly ok: true; readonly rules: ExcludeRules }
  | { readonly ok: false; readonly problem: string };

/** No exclusions. */
const NO_EXCLUDES: ExcludeRules = { globs: [], matches: () => false };

/**
 * Compiles globs into rules, or names the first malformed one. Syntax (a subset
 * of .gitignore's, without negation): `*` any characters but `/`, `?` one
 * character but `/`, `[abc]` / `[a-z]` / `[!abc]` one character of a class,
 * `**` as a whole segment any number of folders, `\` makes the next character
 * plain. A glob without a `/` (other than a trailing one) matches a name at
 * any depth; with one, the path from the vault's root (a leading `/` only
 * says so). A trailing `/` matches folders only.
 */
export function compileExcludes(globs: readonly string[]): GlobCheck {
  const compiled: CompiledGlob[] = [];
  for (const glob of globs) {
    const result = compileGlob(glob);
    if (typeof result === 'string') return { ok: false, problem: `${JSON.stringify(glob)}: ${result}` };
    compiled.push(result);
  }
  if (compiled.length === 0) return { ok: true, rules: NO_EXCLUDES };
  return {
    ok: true,
    rules: {
      globs: [...globs],
      matches: (relativePath, isFolder) =>
        compiled.some((glob) => (isFolder || !glob.foldersOnly) && glob.pattern.test(relativePath)),
    },
  };
}

/** One glob as a regular expression over the whole relative path, or what is wrong with it. */
function compileGlob(glob: string): CompiledGlob | string {
  if (glob.trim() === '') return 'an exclude glob must not be blank';
  if (glob.startsWith('!')) return 'negation (a leading !) is not supported; leave the file out of the list instead';
  const foldersOnly = glob.endsWith('/');
  const body = foldersOnly ? glob.slice(0, -1) : glob;
  const anchored = body.includes('/');
  const segments = (body.startsWith('/') ? body.slice(1) : body).split('/');
  let source = '';
  for (const [i, segment] of segments.entries()) {
    const last = i === segments.length - 1;
    if (segment === '') return 'has an empty path segment (//, or only /)';
    if (segment === '.' || segment === '..') return `has a '${segment}' segment; globs are relative to the vault`;
    if (segment === '**') {
      source += last ? '.*' : '(?:[^/]*/)*';
      continue;
    }
    const part = segmentSource(segment);
    if (!part.ok) return part.problem;
    source += last ? part.source : `${part.source}/`;
  }
  try {
    return { pattern: new RegExp(anchored ? `^${source}$` : `^(?:.*/)?${source}$`, 'u'), foldersOnly };
  } catch {
    return 'has a character class that is not valid (a range such as [z-a])';
  }
}

type SegmentSource = { readonly ok: true; readonly source: string } | { readonly ok: false; readonly problem: string };

function segmentSource(segment: string): SegmentSource {
  const characters = [...segment];
  let source = '';
  for (let i = 0; i < characters.length; i += 1) {
    const c = characters[i] ?? '';
    if (c === '\\') {
      const next = characters[i + 1];
      if (next === undefined) return { ok: false, problem: 'ends in a lone \\ (escape what follows it)' };
      source += escapeRegExp(next);
      i += 1;
    } else if (c === '*') {
      if (characters[i + 1] === '*') return { ok: false, problem: '** must be a whole path segment (a/**/b)' };
      source += '[^/]*';
    } else if (c === '?') {
      source += '[^/]';
    } else if (c === '[') {
      const end = characters.indexOf(']', i + 2);
      if (end === -1) return { ok: false, problem: `has an unclosed [ at character ${i + 1}` };
      source += characterClass(characters.slice(i + 1, end));
      i = end;
    } else if (c === '{' || c === '}') {
      return { ok: false, problem: 'braces are not supported; write one glob per alternative (or escape them: \\{)' };
    } else {
      source += escapeRegExp(c);
    }
  }
  return { ok: true, source };
}

/** `[...]` without its brackets: `!` or `^` first negates; ranges kept; everything else literal. */
function characterClass(inside: readonly string[]): string {
  const negated = inside[0] === '!' || inside[0] === '^';
  const members = (negated ? inside.slice(1) : inside).map((c) => (c === '-' ? '-' : escapeClassCharacter(c)));
  return `[${negated ? '^/' : ''}${members.join('')}]`;
}

function escapeClassCharacter(c: string): string {
  return /[\\\]^[]/.test(c) ? `\\${c}` : c;
}

function escapeRegExp(c: string): string {
  return /[.*+?^${}()|[\]\\/]/.test(c) ? `\\${c}` : c;
}
