import { existsSync } from 'node:fs';
import path from 'node:path';
import { UsageError } from '@notegate/kit/cli';
import type { RagEnvironment } from './environment.js';
import { type RagConfig, readConfigFile, resolveRagConfig } from './load-config.js';
import { findRepositoryRoot } from './repo-root.js';

/** Where the config in use came from (docs/retrieval.md#where-the-config-lives). */
export type ConfigSource = 'flag' | 'environment' | 'repository' | 'user';

export interface ConfigLocation {
  readonly file: string;
  readonly source: ConfigSource;
}

/** The per-user config's file name, in `<user config dir>/notegate/`. */
const USER_CONFIG_FILE = 'vaults.json';
/** A repository's config, under its root. */
const REPOSITORY_CONFIG = path.join('rag', 'vaults.json');

/**
 * docs/retrieval.md#where-the-config-lives: the config every command uses, first found of `--config`,
 * `NOTEGATE_CONFIG`, the per-user config when it exists (the person's own, made by `init`), and
 * `rag/vaults.json` under the repository root of the working directory (when that file exists: a checkout
 * of this repository with its demo config, or a project that keeps its config there). Where none exists,
 * the per-user config is where it was looked for, which is where `init` writes.
 */
export function locateConfig(
  flag: string | undefined,
  cwd: string,
  environment: Pick<RagEnvironment, 'configFile' | 'userConfigDir'>,
): ConfigLocation {
  const chosen = chosenConfig(flag, cwd, environment);
  if (chosen !== undefined) return chosen;
  const user = userConfig(environment);
  if (existsSync(user.file)) return user;
  const inRepository = path.join(findRepositoryRoot(cwd), REPOSITORY_CONFIG);
  if (existsSync(inRepository)) return { file: inRepository, source: 'repository' };
  return user;
}

/**
 * Where `init` writes: `--config`, `NOTEGATE_CONFIG`, else the per-user config — never a repository's
 * config, so that `init` in a clone of this repository makes the person's own config, which every
 * command then finds before the demo's.
 */
export function locateNewConfig(
  flag: string | undefined,
  cwd: string,
  environment: Pick<RagEnvironment, 'configFile' | 'userConfigDir'>,
): ConfigLocation {
  return chosenConfig(flag, cwd, environment) ?? userConfig(environment);
}

function chosenConfig(
  flag: string | undefined,
  cwd: string,
  environment: Pick<RagEnvironment, 'configFile'>,
): ConfigLocation | undefined {
  if (flag !== undefined) return { file: path.resolve(cwd, flag), source: 'flag' };
  if (environment.configFile !== undefined) return { file: environment.configFile, source: 'environment' };
  return undefined;
}

function userConfig(environment: Pick<RagEnvironment, 'userConfigDir'>): ConfigLocation {
  return { file: path.join(environment.userConfigDir, USER_CONFIG_FILE), source: 'user' };
}

/** How a location is named in messages: the file and why it was chosen. */
export function describeLocation(location: ConfigLocation): string {
  const why = {
    flag: 'from --config',
    environment: 'from NOTEGATE_CONFIG',
    repository: "the repository's config",
    user: 'the per-user config',
  }[location.source];
  return `${location.file} (${why})`;
}

/** The JSON of the config at a location; a missing one says how to make it. */
export function readLocatedConfig(location: ConfigLocation): unknown {
  if (!existsSync(location.file)) {
    throw new UsageError(
      `no config at ${describeLocation(location)}: make one with 'notegate-rag init DIR' (a folder of notes), or name one with --config PATH`,
    );
  }
  return readConfigFile(location.file);
}

/** The config at a location, read and checked. */
export function loadLocatedConfig(location: ConfigLocation, homeDir: string): RagConfig {
  return resolveRagConfig(readLocatedConfig(location), location.file, homeDir);
}
