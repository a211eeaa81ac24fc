import { mkdir, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultModelIn, loadEnvironment, loadRagConfig, noDownloads, runIndex } from '@notegate/rag';

/** The demo vault of the repository (docs/demo.md), beside this package. */
const HANDBOOK_DIR = fileURLToPath(new URL('../../../../demo/vaults/handbook', import.meta.url));

/** What the notes servers of the demo serve. */
export interface DemoVaults {
  /** The vaults config every notes server is started with. */
  readonly configFile: string;
  /** `intfloat/multilingual-e5-small` (hybrid search) when its files are in the model cache, else `none`. */
  readonly modelId: string;
}

/**
 * docs/demo.md: one vaults config for the three notes servers — the repository's handbook vault, which each
 * server searches, and a notes vault per server, which only that server searches and writes — indexed once
 * before they start. With the default model in the cache the index has vectors (hybrid search); without
 * (a fresh machine) it is lexical-only, and nothing is downloaded.
 */
export async function prepareDemoVaults(dir: string, servers: readonly string[]): Promise<DemoVaults> {
  const environment = loadEnvironment({
    cwd: process.cwd(),
    env: process.env,
    platform: process.platform,
    homeDir: homedir(),
  });
  const modelId = defaultModelIn(environment.modelCacheDir).id;
  const notesFolder = (server: string) => join(dir, 'vaults', server);
  for (const server of servers) await mkdir(notesFolder(server), { recursive: true, mode: 0o700 });
  const configFile = join(dir, 'vaults.json');
  const config = {
    embed_model: modelId,
    allowed_roots: [HANDBOOK_DIR, join(dir, 'vaults')],
    index_path: join(dir, 'index', 'index.sqlite'),
    vaults: [
      { id: 'handbook', path: HANDBOOK_DIR },
      ...servers.map((server) => ({ id: server, path: notesFolder(server) })),
    ],
  };
  await writeFile(configFile, JSON.stringify(config, null, 2), { mode: 0o600 });
  await runIndex({
    config: loadRagConfig(configFile, homedir()),
    modelCacheDir: environment.modelCacheDir,
    download: noDownloads(environment.modelHubUrl),
  });
  return { configFile, modelId };
}
