import { type ConfigLocation, loadLocatedConfig, locateConfig } from '../config/config-location.js';
import type { RagEnvironment } from '../config/environment.js';
import type { RagConfig } from '../config/load-config.js';

/** What every `notegate-rag` subcommand is given by the dispatcher. */
export interface RagCommandDeps {
  readonly environment: () => RagEnvironment;
  readonly cwd?: string;
}

/** `--config`, shared by every subcommand (docs/retrieval.md#where-the-config-lives). */
export const CONFIG_OPTION = {
  type: 'string',
  valueName: 'PATH',
  description: 'Vaults config file (JSON).',
  defaultText:
    'NOTEGATE_CONFIG, else the per-user config (~/.config/notegate/vaults.json on Linux) when it exists, else rag/vaults.json under the repository root when it exists',
} as const;

/** Where the config of this command line is (docs/retrieval.md#where-the-config-lives). */
export function configLocation(
  flag: string | undefined,
  deps: RagCommandDeps,
  environment: RagEnvironment,
): ConfigLocation {
  return locateConfig(flag, deps.cwd ?? process.cwd(), environment);
}

/** The config named by `--config`, else the one found as docs/retrieval.md#where-the-config-lives says. */
export function configFor(flag: string | undefined, deps: RagCommandDeps, environment: RagEnvironment): RagConfig {
  return loadLocatedConfig(configLocation(flag, deps, environment), environment.homeDir);
}
