import { generateKeyPairSync } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { errorMessage, writeFileAtomic } from '@notegate/kit';
import type { FileLock } from '../../shared/file-lock.js';
import { acquireFileLock, FileLockBusyError } from '../../shared/file-lock.js';
import type { PrivateKeyEntry } from './key-file.js';
import { parseKeyFileEntries, parseSigningKeyFile, privateKeyEntry } from './key-file.js';
import { thumbprintKid } from './signing-key.js';

/** What `notegate authz keygen` does to the key file (docs/protocol.md#key-rotation). */
export type KeyFileChange =
  | { readonly kind: 'create'; readonly kid?: string }
  | { readonly kind: 'add'; readonly kid?: string }
  | { readonly kind: 'promote'; readonly kid: string }
  | { readonly kind: 'remove'; readonly kid: string };

export interface KeyFileOutcome {
  /** The kid of the new key, for create and add. */
  readonly newKid: string | undefined;
  /** The kids in file order: the first signs. */
  readonly kids: readonly string[];
}

/**
 * docs/protocol.md#key-rotation: how long a change waits for another `keygen` holding the file's lock;
 * one change takes well under a second.
 */
const KEY_FILE_LOCK_WAIT_MS = 30_000;

/**
 * Applies `change` to the key file at `path`. The read, the change and the write happen under an
 * exclusive lock on `<path>.lock`, so two changes at once run one after the other and neither is lost
 * (each used to read the same file and the last rename won). The file is replaced whole and atomically
 * (mode 0600), so a token service watching it reads the old set or the new one, never half of one; the
 * new content is checked as the service would check it before it is written.
 */
export async function changeKeyFile(path: string, change: KeyFileChange): Promise<KeyFileOutcome> {
  let lock: FileLock;
  try {
    lock = await acquireFileLock(`${path}.lock`, KEY_FILE_LOCK_WAIT_MS);
  } catch (err) {
    if (err instanceof FileLockBusyError) throw new Error(`another keygen is changing ${path}: ${err.message}`);
    throw new Error(`cannot lock ${path}: ${errorMessage(err)}`);
  }
  try {
    return await applyChange(path, change);
  } finally {
    lock.release();
  }
}

async function applyChange(path: string, change: KeyFileChange): Promise<KeyFileOutcome> {
  const exists = await stat(path).then(
    () => true,
    () => false,
  );
  if (change.kind === 'create' && exists) {
    throw new Error(`${path} exists; add a key to it with --add, or choose another file`);
  }
  if (change.kind !== 'create' && !exists) throw new Error(`${path} does not exist; create it first (without --add)`);
  const entries = change.kind === 'create' ? [] : await readEntries(path);
  let newKid: string | undefined;
  let next: PrivateKeyEntry[];
  if (change.kind === 'create' || change.kind === 'add') {
    const created = await newEntry(change.kid, entries);
    newKid = created.kid;
    next = [...entries, created];
  } else {
    const index = entries.findIndex((entry) => entry.kid === change.kid);
    if (index === -1) throw new Error(`${path} has no key '${change.kid}' (kids: ${kidsOf(entries).join(', ')})`);
    const others = entries.filter((_, at) => at !== index);
    if (change.kind === 'promote') {
      next = [entries[index] as PrivateKeyEntry, ...others];
    } else {
      if (index === 0) throw new Error(`'${change.kid}' signs; promote another key before removing it`);
      next = others;
    }
  }
  const content = `${JSON.stringify({ keys: next }, null, 2)}\n`;
  await parseSigningKeyFile(content);
  await writeFileAtomic(dirname(path), basename(path), content);
  return { newKid, kids: kidsOf(next) };
}

async function readEntries(path: string): Promise<PrivateKeyEntry[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new Error(`cannot read ${path}: ${errorMessage(err)}`);
  }
  try {
    return parseKeyFileEntries(text);
  } catch (err) {
    throw new Error(`${path}: ${errorMessage(err)}`);
  }
}

async function newEntry(kid: string | undefined, existing: readonly PrivateKeyEntry[]): Promise<PrivateKeyEntry> {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const chosen = kid ?? (await thumbprintKid(privateKey));
  if (existing.some((entry) => entry.kid === chosen)) throw new Error(`the file already has a key '${chosen}'`);
  return privateKeyEntry(privateKey, chosen);
}

function kidsOf(entries: readonly PrivateKeyEntry[]): string[] {
  return entries.map((entry) => entry.kid);
}
