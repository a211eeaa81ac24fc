import { type FSWatcher, lstatSync, readdirSync, realpathSync, watch } from 'node:fs';
import path from 'node:path';
import { errorMessage } from '@notegate/kit';
import type { ResolvedVault } from '../config/load-config.js';
import { isHiddenName, joinRelative } from './vault-path.js';

export interface VaultWatcher {
  close(): void;
}

type ChangeListener = (vaultId: string, relativePath: string | undefined) => void;
type ErrorListener = (vaultId: string, err: Error) => void;

/**
 * Follows the folders of `vaults` and reports which vault changed
 * (docs/retrieval.md#following-the-vaults). Events under hidden names
 * (`.obsidian`, an index kept inside the vault, the temporary files of an
 * atomic write) are not changes of the vault's notes and are dropped;
 * everything else is reported, since one index run settles what actually
 * changed. Only folders inside the vault are watched
 * (docs/security.md#vault-folders-and-notes): see `VaultFolders`.
 */
export function watchVaults(
  vaults: readonly ResolvedVault[],
  onChange: ChangeListener,
  onError: ErrorListener,
): VaultWatcher {
  const watched: VaultFolders[] = [];
  const close = () => {
    for (const folders of watched) folders.close();
  };
  try {
    for (const vault of vaults) watched.push(new VaultFolders(vault, onChange, onError));
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

/**
 * The folders of one vault, each watched on its own (one inotify watch per folder on Linux, not per
 * file). Node's recursive watch follows a folder swapped for a symbolic link and watches the whole
 * tree it points at; here a folder is watched only while it is a real folder inside the vault: its
 * real path is its path under the vault's real path, with no link on the way. That is checked before
 * and again after the watch is set up (fs.watch follows a link swapped in between, so such a watch is
 * let go), and again whenever an event names the folder or an entry in it: a folder that turned into
 * a link, a file or nothing is no longer watched, nor anything under it. The vault folder itself
 * replaced is reported as an error, and nothing of it is watched any more.
 */
class VaultFolders {
  readonly #vault: ResolvedVault;
  readonly #onChange: ChangeListener;
  readonly #onError: ErrorListener;
  /** Relative folder (`''`: the vault folder) → its watch. */
  readonly #watchers = new Map<string, FSWatcher>();
  #closed = false;

  constructor(vault: ResolvedVault, onChange: ChangeListener, onError: ErrorListener) {
    this.#vault = vault;
    this.#onChange = onChange;
    this.#onError = onError;
    if (!this.#isRealFolder('')) throw new Error(`${vault.realPath} is not a folder of its own (a link, or gone)`);
    this.#add('');
  }

  close(): void {
    this.#closed = true;
    for (const watcher of this.#watchers.values()) watcher.close();
    this.#watchers.clear();
  }

  /** Watches `folder` and the folders under it; a failure below the vault folder is reported, not thrown. */
  #add(folder: string): void {
    if (this.#closed || this.#watchers.has(folder) || !this.#isRealFolder(folder)) return;
    let watcher: FSWatcher;
    try {
      watcher = watch(this.#full(folder), { persistent: false }, (_event, name) => this.#changed(folder, name));
    } catch (err) {
      if (folder === '') throw err;
      this.#onError(this.#vault.id, new Error(`cannot watch ${folder}: ${errorMessage(err)}`));
      return;
    }
    watcher.on('error', (err) => this.#onError(this.#vault.id, err));
    if (!this.#isRealFolder(folder)) {
      watcher.close();
      return;
    }
    this.#watchers.set(folder, watcher);
    for (const entry of this.#entries(folder)) {
      if (entry.isDirectory() && !isHiddenName(entry.name)) this.#add(joinRelative(folder, entry.name));
    }
  }

  /** An event of the watch of `folder`, naming an entry in it (or, for the folder itself moved or removed, its own name). */
  #changed(folder: string, name: string | null): void {
    if (this.#closed) return;
    if (!this.#isRealFolder(folder)) {
      this.#drop(folder);
      if (folder === '') {
        this.#onError(
          this.#vault.id,
          new Error(`the vault folder ${this.#vault.realPath} was moved, removed or replaced; not following it`),
        );
      }
      this.#onChange(this.#vault.id, folder === '' ? undefined : folder);
      return;
    }
    const relative = name === null ? undefined : joinRelative(folder, name);
    if (relative !== undefined && isHiddenPath(relative)) return;
    if (relative !== undefined) {
      // New folders are watched before anyone hears of the change, so a note written into one is seen.
      if (this.#isRealFolder(relative)) this.#add(relative);
      else this.#drop(relative);
    }
    this.#onChange(this.#vault.id, relative);
  }

  /** Stops watching `folder` and every folder under it. */
  #drop(folder: string): void {
    for (const [watched, watcher] of this.#watchers) {
      if (folder === '' || watched === folder || watched.startsWith(`${folder}/`)) {
        watcher.close();
        this.#watchers.delete(watched);
      }
    }
  }

  /** A real folder inside the vault: a folder (not a link to one) whose real path is its path. */
  #isRealFolder(folder: string): boolean {
    const full = this.#full(folder);
    try {
      return lstatSync(full).isDirectory() && realpathSync(full) === full;
    } catch {
      return false;
    }
  }

  #entries(folder: string) {
    try {
      return readdirSync(this.#full(folder), { withFileTypes: true });
    } catch {
      // Removed meanwhile: its parent's watch reports that.
      return [];
    }
  }

  #full(folder: string): string {
    return folder === '' ? this.#vault.realPath : path.join(this.#vault.realPath, ...folder.split('/'));
  }
}
