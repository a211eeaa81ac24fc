import { lstatSync, type Stats } from 'node:fs';
import path from 'node:path';
import { checkDiode, type DiodeContext } from '../config/diode-policy.js';
import type { ResolvedVault } from '../config/load-config.js';
import { isHiddenName, isMarkdownName, namespaceOf } from './vault-path.js';
import type { VaultListing } from './walk-vault.js';

/**
 * The listing a walk of the vault would give for these notes alone (paths
 * relative to the vault, `/`-separated), so that a change of a few notes is
 * indexed without walking the whole vault (docs/retrieval.md#following-the-vaults):
 * a note that is there is listed, one that is gone is not. Undefined when a
 * path cannot be settled without the walk's rules for symlinks and folders
 * (not a markdown name, a hidden or relative component, a symlink or a
 * non-folder on the way, a folder under the note's name, an unreadable
 * entry): the caller walks the vault instead.
 */
export function listNotes(
  vault: ResolvedVault,
  diode: DiodeContext,
  paths: readonly string[],
): VaultListing | undefined {
  const listing: VaultListing = { files: [], skipped: [], links: 0 };
  for (const rel of new Set(paths)) {
    const parts = rel.split('/');
    const name = parts[parts.length - 1] ?? '';
    if (parts.some((part) => part === '' || part === '..' || isHiddenName(part)) || !isMarkdownName(name)) {
      return undefined;
    }
    const found = entryAt(vault.realPath, parts);
    if (found === 'gone') continue;
    if (found === undefined || !found.stats.isFile()) return undefined;
    const verdict = checkDiode([found.full], diode);
    if (!verdict.allowed) {
      listing.skipped.push({ vault: vault.id, path: rel, reason: 'diode_policy', detail: verdict.message });
      continue;
    }
    listing.files.push({
      vault: vault.id,
      path: rel,
      namespace: namespaceOf(rel),
      realPath: found.full,
      mtimeMs: found.stats.mtimeMs,
      sizeBytes: found.stats.size,
    });
  }
  return listing;
}

/** The entry at `parts` below `root` through plain folders only; 'gone' when it or a folder on the way is missing. */
function entryAt(root: string, parts: readonly string[]): { full: string; stats: Stats } | 'gone' | undefined {
  let full = root;
  for (const [i, part] of parts.entries()) {
    full = path.join(full, part);
    let stats: Stats;
    try {
      stats = lstatSync(full);
    } catch (err) {
      return err instanceof Error && 'code' in err && err.code === 'ENOENT' ? 'gone' : undefined;
    }
    if (stats.isSymbolicLink()) return undefined;
    if (i === parts.length - 1) return { full, stats };
    if (!stats.isDirectory()) return undefined;
  }
  return undefined;
}
