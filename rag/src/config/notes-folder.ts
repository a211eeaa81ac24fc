import { mkdirSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { UsageError } from '@notegate/kit/cli';
import { isPersonalCloudPath, personalCloudMessage } from './diode-policy.js';
import { homeVariants, type RagConfig } from './load-config.js';
import { NO_MODEL } from './models.js';

/** The vault id of a notes folder given without a config. */
const NOTES_FOLDER_VAULT_ID = 'notes';
/**
 * Where a notes folder's index lives, relative to the folder: a hidden folder,
 * which the vault walk never enters (docs/retrieval.md#chunking), so the index
 * travels with the notes and is never taken for one.
 */
const NOTES_FOLDER_INDEX = path.join('.notegate', 'index.sqlite');

/**
 * The config of one folder of notes without a config file
 * (docs/retrieval.md#a-notes-folder-without-a-config): one vault at `dir`
 * (created if missing), a lexical-only index inside it under a hidden folder,
 * and the folder itself as the only allowed root. The diode policy applies as
 * for a config: a folder in the personal cloud drive is refused. `flag` names
 * the option in messages.
 */
export function notesFolderConfig(dir: string, homeDir: string, flag: string): RagConfig {
  const absolute = path.resolve(dir);
  const homeDirs = homeVariants(homeDir);
  if (isPersonalCloudPath(absolute, homeDirs)) throw new UsageError(`${flag}: ${personalCloudMessage(absolute)}`);
  let realPath: string;
  try {
    mkdirSync(absolute, { recursive: true });
    realPath = realpathSync(absolute);
  } catch (err) {
    const code = err instanceof Error && 'code' in err ? String(err.code) : 'unknown error';
    throw new UsageError(`${flag}: cannot use ${absolute} as the notes folder (${code})`);
  }
  if (isPersonalCloudPath(realPath, homeDirs)) throw new UsageError(`${flag}: ${personalCloudMessage(realPath)}`);
  return Object.freeze({
    configPath: absolute,
    repoRoot: realPath,
    model: NO_MODEL,
    indexPath: path.join(realPath, NOTES_FOLDER_INDEX),
    vaults: [{ id: NOTES_FOLDER_VAULT_ID, path: absolute, realPath }],
    diode: { allowedRoots: [realPath], homeDirs },
  });
}
