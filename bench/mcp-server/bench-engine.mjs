// The notes server's engine over a bench config, as `notegate notes-server --vaults-config FILE` opens it
// (every vault served, the first one written), and the bench vault config over the eval vault.
import { mkdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { loadRagConfig, NotesEngine, noDownloads, runIndex } from '@notegate/rag';

export async function openBenchEngine(file, log = () => undefined) {
  const config = loadRagConfig(file, homedir());
  const ids = config.vaults.map((vault) => vault.id);
  return NotesEngine.open({
    config,
    vaultIds: ids,
    writeVaultId: ids[0],
    modelCacheDir: homedir(),
    modelHubUrl: new URL('http://127.0.0.1/'),
    createIndex: false,
    log,
  });
}

/**
 * A lexical-only config in `work`: a scratch vault the writes go to (first), and the eval vault
 * (read only); indexed once here. Returns the config file and the index run's summary.
 */
export async function benchVaults(work, evalVault, modelId = 'none', modelCacheDir = work) {
  const scratch = join(work, 'scratch');
  mkdirSync(scratch, { recursive: true });
  const file = join(work, 'vaults.json');
  writeFileSync(
    file,
    JSON.stringify({
      embed_model: modelId,
      allowed_roots: [work, evalVault],
      index_path: join(work, 'index', 'index.sqlite'),
      vaults: [
        { id: 'scratch', path: scratch },
        { id: 'eval', path: evalVault },
      ],
    }),
  );
  const summary = await runIndex({
    config: loadRagConfig(file, homedir()),
    modelCacheDir,
    download: noDownloads(new URL('http://127.0.0.1/')),
  });
  return { file, summary };
}
