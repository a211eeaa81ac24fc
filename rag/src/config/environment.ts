import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseEnv } from 'node:util';
import { parseChoice, parseHttpUrl } from '@notegate/kit/cli';

/** What the retrieval package takes from the environment; built once, in one place. */
export interface RagEnvironment {
  readonly modelCacheDir: string;
  /** Base URL of the model hub that missing model files are downloaded from. */
  readonly modelHubUrl: URL;
  readonly homeDir: string;
  /** `NOTEGATE_CONFIG`, resolved against the working directory: the config every command uses unless `--config` names one. */
  readonly configFile: string | undefined;
  /** `<user config dir>/notegate`: where the per-user config lives (docs/retrieval.md#where-the-config-lives). */
  readonly userConfigDir: string;
  /** `<user data dir>/notegate`: the per-user config's index, beside the model cache. */
  readonly userDataDir: string;
  /** `NOTEGATE_SERVER_PORT` / `NOTEGATE_SERVER_HOST` as written (blank is unset); `serve` parses them. */
  readonly serverPort: string | undefined;
  readonly serverHost: string | undefined;
  /** `NOTEGATE_DENSE_SCAN`: whether large segments are searched approximately (docs/retrieval.md#dense-leg). */
  readonly denseScan: DenseScan;
}

/** `auto`: sign codes for segments of a quarter million rows and more; `exact`: every segment scanned exactly. */
export type DenseScan = 'auto' | 'exact';
export const DENSE_SCANS: readonly DenseScan[] = ['auto', 'exact'];

export const DEFAULT_MODEL_HUB_URL = 'https://huggingface.co';

export interface EnvironmentSources {
  readonly cwd: string;
  /** The real environment (wins over `.env`). */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly platform: NodeJS.Platform;
  readonly homeDir: string;
}

/** docs/retrieval.md#search-api: `.env` in the working directory is loaded; real environment variables win. */
export function loadEnvironment(sources: EnvironmentSources): RagEnvironment {
  const dotEnvFile = path.join(sources.cwd, '.env');
  const fromFile = existsSync(dotEnvFile) ? parseEnv(readFileSync(dotEnvFile, 'utf8')) : {};
  const env = { ...fromFile, ...definedOnly(sources.env) };
  const cache = nonEmpty(env.NOTEGATE_MODEL_CACHE);
  const configFile = nonEmpty(env.NOTEGATE_CONFIG);
  const dataDir = path.join(userDir('data', sources.platform, sources.homeDir, env), 'notegate');
  return {
    modelCacheDir: cache ? path.resolve(sources.cwd, cache) : path.join(dataDir, 'models'),
    modelHubUrl: parseHttpUrl('NOTEGATE_MODEL_HUB', nonEmpty(env.NOTEGATE_MODEL_HUB) ?? DEFAULT_MODEL_HUB_URL),
    homeDir: sources.homeDir,
    configFile: configFile === undefined ? undefined : path.resolve(sources.cwd, configFile),
    userConfigDir: path.join(userDir('config', sources.platform, sources.homeDir, env), 'notegate'),
    userDataDir: dataDir,
    serverPort: nonEmpty(env.NOTEGATE_SERVER_PORT),
    serverHost: nonEmpty(env.NOTEGATE_SERVER_HOST),
    denseScan: parseChoice('NOTEGATE_DENSE_SCAN', nonEmpty(env.NOTEGATE_DENSE_SCAN) ?? 'auto', DENSE_SCANS),
  };
}

/** What differs between the per-user folders of each kind, per platform. */
const USER_DIRS = {
  data: {
    xdgVariable: 'XDG_DATA_HOME',
    xdgDefault: ['.local', 'share'],
    windowsVariable: 'LOCALAPPDATA',
    windowsDefault: ['AppData', 'Local'],
  },
  config: {
    xdgVariable: 'XDG_CONFIG_HOME',
    xdgDefault: ['.config'],
    windowsVariable: 'APPDATA',
    windowsDefault: ['AppData', 'Roaming'],
  },
} as const;

/**
 * The per-user folder of a kind: XDG on Linux (`~/.local/share`, `~/.config`), Application Support on
 * macOS (both kinds), LOCALAPPDATA / APPDATA on Windows.
 */
export function userDir(
  kind: keyof typeof USER_DIRS,
  platform: NodeJS.Platform,
  homeDir: string,
  env: Readonly<Record<string, string | undefined>>,
): string {
  const dirs = USER_DIRS[kind];
  if (platform === 'darwin') return path.join(homeDir, 'Library', 'Application Support');
  if (platform === 'win32') return nonEmpty(env[dirs.windowsVariable]) ?? path.join(homeDir, ...dirs.windowsDefault);
  const xdg = nonEmpty(env[dirs.xdgVariable]);
  // XDG Base Directory spec: a relative path in its variables is invalid and ignored.
  return xdg && path.isAbsolute(xdg) ? xdg : path.join(homeDir, ...dirs.xdgDefault);
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

function definedOnly(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined) out[key] = value;
  return out;
}
