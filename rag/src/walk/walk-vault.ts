import { type Dirent, readdirSync, realpathSync, type Stats, statSync } from 'node:fs';
import path from 'node:path';
import { checkDiode, type DiodeContext, isInside } from '../config/diode-policy.js';
import type { ResolvedVault } from '../config/load-config.js';
import { isHiddenName, isMarkdownName, joinRelative, namespaceOf } from './vault-path.js';

export interface VaultFile {
  readonly vault: string;
  /** Relative to the vault, `/`-separated. */
  readonly path: string;
  readonly namespace: string;
  /** The real path the content is read from. */
  readonly realPath: string;
  readonly mtimeMs: number;
  readonly sizeBytes: number;
}

export type SkipReason = 'diode_policy' | 'symlink_outside_vault' | 'unreadable' | 'not_utf8' | 'too_large';

export interface SkippedFile {
  readonly vault: string;
  readonly path: string;
  readonly reason: SkipReason;
  readonly detail: string;
}

export interface VaultListing {
  readonly files: VaultFile[];
  readonly skipped: SkippedFile[];
  /**
   * Notes and folders reached through a symlink: their notes have another
   * path too, so a change seen at one path cannot be followed alone.
   */
  links: number;
}

/**
 * Lists the markdown files of a vault in a stable order. Hidden folders and
 * what the vault's `exclude` globs name are not entered; a symlink is followed only when its real path stays inside the
 * vault and passes the diode policy, otherwise it is skipped with the reason.
 */
export function walkVault(vault: ResolvedVault, diode: DiodeContext): VaultListing {
  const listing: VaultListing = { files: [], skipped: [], links: 0 };
  const visited = new Set<string>([vault.realPath]);
  const skip = (rel: string, reason: SkipReason, detail: string) =>
    listing.skipped.push({ vault: vault.id, path: rel, reason, detail });

  const visit = (realDir: string, relDir: string): void => {
    let entries: Dirent[];
    try {
      // A folder swapped for a link since it was listed, the vault folder itself included, is not
      // entered: readdir would follow the link out of the vault (docs/security.md#vault-folders-and-notes).
      const real = realpathSync(realDir);
      if (real !== realDir) throw new Error(`the folder was replaced by a link to ${real}`);
      entries = readdirSync(realDir, { withFileTypes: true });
    } catch (err) {
      skip(relDir === '' ? '.' : relDir, 'unreadable', describeFsError(err));
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (isHiddenName(entry.name)) continue;
      const rel = joinRelative(relDir, entry.name);
      // docs/retrieval.md#excluding-notes: an excluded folder is not entered; a symlink is what it points to.
      if (vault.exclude?.matches(rel, entry.isDirectory())) continue;
      const target = resolveEntry(path.join(realDir, entry.name), entry, rel);
      if (target === undefined) continue;
      if (entry.isSymbolicLink() && target.stats.isDirectory() && vault.exclude?.matches(rel, true)) continue;
      if (target.stats.isDirectory()) {
        if (visited.has(target.realPath)) continue;
        visited.add(target.realPath);
        if (entry.isSymbolicLink()) listing.links += 1;
        visit(target.realPath, rel);
      } else if (target.stats.isFile() && isMarkdownName(entry.name)) {
        if (entry.isSymbolicLink()) listing.links += 1;
        listing.files.push({
          vault: vault.id,
          path: rel,
          namespace: namespaceOf(rel),
          realPath: target.realPath,
          mtimeMs: target.stats.mtimeMs,
          sizeBytes: target.stats.size,
        });
      }
    }
  };

  /** The real path and stats of an entry worth reading, or undefined (recording why when it matters). */
  const resolveEntry = (full: string, entry: Dirent, rel: string): { realPath: string; stats: Stats } | undefined => {
    const wanted = (isDir: boolean, isFile: boolean) => isDir || (isFile && isMarkdownName(entry.name));
    if (!entry.isSymbolicLink() && !wanted(entry.isDirectory(), entry.isFile())) return undefined;
    let realPath: string;
    let stats: Stats;
    try {
      realPath = entry.isSymbolicLink() ? realpathSync(full) : full;
      stats = statSync(realPath);
    } catch (err) {
      if (entry.isDirectory() || isMarkdownName(entry.name)) skip(rel, 'unreadable', describeFsError(err));
      return undefined;
    }
    if (!wanted(stats.isDirectory(), stats.isFile())) return undefined;
    const verdict = checkDiode([full, realPath], diode);
    if (!verdict.allowed) {
      skip(rel, 'diode_policy', verdict.message);
      return undefined;
    }
    if (!isInside(realPath, vault.realPath)) {
      skip(rel, 'symlink_outside_vault', `symlink to ${realPath}, outside the vault ${vault.realPath}`);
      return undefined;
    }
    return { realPath, stats };
  };

  visit(vault.realPath, '');
  return listing;
}

export function describeFsError(err: unknown): string {
  if (err instanceof Error && 'code' in err && typeof err.code === 'string') return `${err.code}: ${err.message}`;
  return err instanceof Error ? err.message : String(err);
}
