import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '@notegate/kit';
import { DEFAULT_MODEL_ID } from '../config/models.js';

/**
 * Writes a config file whole (docs/retrieval.md#a-folder-in-one-command): its folder made owner-only when
 * it is new, the file replaced atomically (owner-only), so a crash leaves the old config or the new one.
 */
export async function writeConfigFile(file: string, json: Record<string, unknown>): Promise<void> {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  await writeFileAtomic(path.dirname(file), path.basename(file), `${JSON.stringify(json, null, 2)}\n`);
}

/** The one line that says how a lexical-only index gets vectors later (docs/retrieval.md#lexical-only-indexes). */
export function addVectorsLater(configFile: string): string {
  return (
    `To add vectors later, set "embed_model": "${DEFAULT_MODEL_ID}" in ${configFile} and run ` +
    `'notegate-rag index --rebuild' (it downloads the model, or install it first with 'notegate-rag model install').`
  );
}
