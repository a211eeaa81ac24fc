import { type FSWatcher, watch } from 'node:fs';
import type { ResolvedVault } from '../config/load-config.js';
import { isHiddenName } from './vault-path.js';

export interface VaultWatcher {
  close(): void;
}

/**
 * Follows the folders of `vaults` (Node's recursive fs.watch: inotify per
 * folder on Linux, FSEvents on macOS) and reports which vault changed. Events
 * under hidden names (`.obsidian`, an index kept inside the vault, the
 * temporary files of an atomic write) are not changes of the vault's notes
 * and are dropped; everything else is reported, since one index run settles
 * what actually changed (docs/retrieval.md#following-the-vaults).
 */
export function watchVaults(
  vaults: readonly ResolvedVault[],
  onChange: (vaultId: string, relativePath: string | undefined) => void,
  onError: (vaultId: string, err: Error) => void,
): VaultWatcher {
  const watchers: FSWatcher[] = [];
  const close = () => {
    for (const watcher of watchers) watcher.close();
  };
  try {
    for (const vault of vaults) {
      const watcher = watch(vault.realPath, { recursive: true, persistent: false }, (_event, name) => {
        const relative = name === null ? undefined : name.toString();
        if (relative !== undefined && isHiddenPath(relative)) return;
        onChange(vault.id, relative);
      });
      watcher.on('error', (err) => onError(vault.id, err));
      watchers.push(watcher);
    }
  } catch (err) {
    close();
    throw err;
  }
  return { close };
}

/** Whether a path relative to the vault has a hidden component. */
export function isHiddenPath(relative: string): boolean {
  return relative.split(/[\\/]/).some(isHiddenName);
}
