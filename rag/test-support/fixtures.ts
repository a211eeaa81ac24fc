import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { tempDir as kitTempDir } from '@notegate/kit/testing';
import { loadRagConfig, type RagConfig } from '../src/config/load-config.js';
import { findModel, type ModelSpec } from '../src/config/models.js';
import type { Embedder } from '../src/embed/embedder.js';
import { loadTransformersEmbedder } from '../src/embed/transformers-embedder.js';
import type { FileRecord } from '../src/store/index-store.js';
import { E5_SMALL, MINILM, testModelCache } from './test-model/test-model.js';

export { E5_SMALL, MINILM };

/** A fresh real directory, removed after the test. */
export function tempDir(t: TestContext, prefix = 'notegate-rag-'): string {
  return kitTempDir(t, prefix);
}

/** Writes `files` (relative path → content) below `root`. */
export function writeFiles(root: string, files: Readonly<Record<string, string | Buffer>>): void {
  for (const [rel, content] of Object.entries(files)) {
    const file = path.join(root, ...rel.split('/'));
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, content);
  }
}

export interface Workspace {
  readonly root: string;
  readonly configPath: string;
  readonly config: RagConfig;
  readonly home: string;
}

/**
 * A repository-like folder (`.git` marker) with vaults and a config naming
 * them; `home` is a separate fake home directory for the diode checks.
 */
export function workspace(
  t: TestContext,
  vaults: Readonly<Record<string, Readonly<Record<string, string | Buffer>>>>,
  model = MINILM,
): Workspace {
  const base = tempDir(t);
  const root = path.join(base, 'repo');
  const home = path.join(base, 'home');
  mkdirSync(path.join(root, '.git'), { recursive: true });
  mkdirSync(home, { recursive: true });
  for (const [id, files] of Object.entries(vaults)) {
    mkdirSync(path.join(root, 'vaults', id), { recursive: true });
    writeFiles(path.join(root, 'vaults', id), files);
  }
  const configPath = path.join(root, 'rag', 'vaults.json');
  writeConfig(configPath, {
    embed_model: model,
    vaults: Object.keys(vaults).map((id) => ({ id, path: `vaults/${id}` })),
  });
  return { root, configPath, config: loadRagConfig(configPath, home), home };
}

export function writeConfig(file: string, value: unknown): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(value, null, 2));
}

export function model(id: string): ModelSpec {
  const spec = findModel(id);
  if (!spec) throw new Error(`unknown model ${id}`);
  return spec;
}

const embedders = new Map<string, Promise<Embedder>>();

/** One test-model embedder per model and test process, loaded once; `dispose` is a no-op. */
export function sharedEmbedder(id: string): Promise<Embedder> {
  let embedder = embedders.get(id);
  if (!embedder) {
    embedder = loadTransformersEmbedder(model(id), testModelCache()).then((loaded) => ({
      ...loaded,
      dispose: async () => {},
    }));
    embedders.set(id, embedder);
  }
  return embedder;
}

/** A file row for store-level tests (vault `v`, fixed stamps). */
export function fileRecord(pathName: string, overrides: Partial<FileRecord> = {}): FileRecord {
  return {
    vault: 'v',
    path: pathName,
    namespace: '',
    title: 'Title',
    aliases: ['alias'],
    tags: [],
    mtimeMs: 1,
    sizeBytes: 2,
    contentSha256: 'sha',
    fingerprint: 'fp',
    ...overrides,
  };
}
