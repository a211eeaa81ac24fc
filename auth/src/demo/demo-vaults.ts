import { mkdir, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultModelIn, loadEnvironment, loadRagConfig, noDownloads, runIndex } from '@notegate/rag';

/**
 * The demo vault (docs/demo.md) is a package of its own, @notegate/demo-vaults (the repository's demo/ folder),
 * so that an installed notegate carries it too (docs/install.md#packages).
 */
function handbookDir(): string {
  return join(dirname(fileURLToPath(import.meta.resolve('@notegate/demo-vaults/package.json'))), 'vaults', 'handbook');
}

/** What the notes servers of the demo serve. */
export interface DemoVaults {
  /** The vaults config every notes server is started with. */
  readonly configFile: string;
  /** `intfloat/multilingual-e5-small` (hybrid search) when it can run here, else `none`. */
  readonly modelId: string;
}

/**
 * docs/demo.md: one vaults config for the three notes servers — the repository's handbook vault, which each
 * server searches, and a notes vault per server, which only that server searches and writes — indexed once
 * before they start. With the default model in the cache and its runtime installed the index has vectors (hybrid
 * search); without (a fresh machine, a lexical-only install) it is lexical-only, and nothing is downloaded.
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
  const handbook = handbookDir();
  const config = {
    embed_model: modelId,
    allowed_roots: [handbook, join(dir, 'vaults')],
    index_path: join(dir, 'index', 'index.sqlite'),
    vaults: [
      { id: 'handbook', path: handbook },
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
