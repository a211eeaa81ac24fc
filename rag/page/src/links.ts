/**
 * The link that opens a hit (docs/retrieval.md#search-page): Obsidian's `obsidian://open?path=`
 * (the note, in the vault Obsidian knows it from), or an editor's `vscode://file/…:line:column`
 * (VS Code; Cursor answers `cursor://` the same way), at the hit's first line.
 */
import type { VaultInfo } from './api.js';

export type OpenWith = 'auto' | 'vscode' | 'cursor' | 'obsidian';

export const OPEN_WITH: readonly OpenWith[] = ['auto', 'vscode', 'cursor', 'obsidian'];

export function isOpenWith(value: string): value is OpenWith {
  return (OPEN_WITH as readonly string[]).includes(value);
}

/** The note's absolute path with `/` separators, starting with `/` (a Windows drive letter after it). */
function absolutePath(folder: string, path: string): string {
  const joined = `${folder.replace(/[\\/]+$/, '')}/${path}`.replaceAll('\\', '/');
  return joined.startsWith('/') ? joined : `/${joined}`;
}

/** A path inside a URL: percent-encoded, `/` and a drive's `:` kept. */
function urlPath(path: string): string {
  return path
    .split('/')
    .map((segment) => encodeURIComponent(segment).replace(/^([A-Za-z])%3A$/, '$1:'))
    .join('/');
}

/** The URL that opens `path` of `vault` at `line` with `app`; undefined when the vault's folder is unknown. */
export function openUrl(vault: VaultInfo | undefined, path: string, line: number, app: OpenWith): string | undefined {
  if (vault === undefined || vault.folder === null) return undefined;
  const file = absolutePath(vault.folder, path);
  const chosen = app === 'auto' ? (vault.obsidian ? 'obsidian' : 'vscode') : app;
  if (chosen === 'obsidian') return `obsidian://open?path=${encodeURIComponent(file)}`;
  return `${chosen}://file${urlPath(file)}:${Math.max(1, line)}:1`;
}
