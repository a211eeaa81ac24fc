import { readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { NotesEngine, notesFolderConfig } from '@notegate/rag';

/** The engine of `notegate notes-server --notes-dir DIR`: one folder, its own lexical-only index, no model. */
export function openFolderEngine(dir: string, log: (line: string) => void = () => undefined): Promise<NotesEngine> {
  const config = notesFolderConfig(dir, homedir(), '--notes-dir');
  const id = config.vaults[0]?.id ?? '';
  return NotesEngine.open({
    config,
    vaultIds: [id],
    writeVaultId: id,
    modelCacheDir: dir,
    modelHubUrl: new URL('http://127.0.0.1/'),
    createIndex: true,
    log,
  });
}

/** Markdown notes in a folder and its visible subfolders (what a write may have added). */
export function notesIn(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.md') && !name.split('/').some((part) => part.startsWith('.')))
    .sort();
}
