import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseEnv } from 'node:util';
import { parseHttpUrl } from '@notegate/kit/cli';

/** What the retrieval package takes from the environment; built once, in one place. */
export interface RagEnvironment {
  readonly modelCacheDir: string;
  /** Base URL of the model hub that missing model files are downloaded from. */
  readonly modelHubUrl: URL;
  readonly homeDir: string;
  /** `NOTEGATE_SERVER_PORT` / `NOTEGATE_SERVER_HOST` as written (blank is unset); `serve` parses them. */
  readonly serverPort: string | undefined;
  readonly serverHost: string | undefined;
}

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
  return {
    modelCacheDir: cache
      ? path.resolve(sources.cwd, cache)
      : path.join(userDataDir(sources.platform, sources.homeDir, env), 'notegate', 'models'),
    modelHubUrl: parseHttpUrl('NOTEGATE_MODEL_HUB', nonEmpty(env.NOTEGATE_MODEL_HUB) ?? DEFAULT_MODEL_HUB_URL),
    homeDir: sources.homeDir,
    serverPort: nonEmpty(env.NOTEGATE_SERVER_PORT),
    serverHost: nonEmpty(env.NOTEGATE_SERVER_HOST),
  };
}

/** The per-user data directory: XDG on Linux, Application Support on macOS, LOCALAPPDATA on Windows. */
export function userDataDir(
  platform: NodeJS.Platform,
  homeDir: string,
  env: Readonly<Record<string, string | undefined>>,
): string {
  if (platform === 'darwin') return path.join(homeDir, 'Library', 'Application Support');
  if (platform === 'win32') return nonEmpty(env.LOCALAPPDATA) ?? path.join(homeDir, 'AppData', 'Local');
  const xdg = nonEmpty(env.XDG_DATA_HOME);
  // XDG Base Directory spec: a relative XDG_DATA_HOME is invalid and ignored.
  return xdg && path.isAbsolute(xdg) ? xdg : path.join(homeDir, '.local', 'share');
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

function definedOnly(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined) out[key] = value;
  return out;
}
