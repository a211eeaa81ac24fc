import type { RagEnvironment } from '../config/environment.js';
import { defaultConfigPath, loadRagConfig, type RagConfig } from '../config/load-config.js';

/** What every `notegate-rag` subcommand is given by the dispatcher. */
export interface RagCommandDeps {
  readonly environment: () => RagEnvironment;
  readonly cwd?: string;
}

/** `--config`, shared by every subcommand (default rag/vaults.json under the repository root, docs/retrieval.md#config). */
export const CONFIG_OPTION = {
  type: 'string',
  valueName: 'PATH',
  description: 'Vaults config file (JSON).',
  defaultText: 'rag/vaults.json under the repository root',
} as const;

/** The config named by `--config`, else the default one found from the working directory. */
export function configFor(flag: string | undefined, deps: RagCommandDeps, environment: RagEnvironment): RagConfig {
  return loadRagConfig(flag ?? defaultConfigPath(deps.cwd ?? process.cwd()), environment.homeDir);
}
