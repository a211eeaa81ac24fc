import { execFile } from 'node:child_process';
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The SPIRE release the project targets; `npm run spire:build` builds it (docs/demo.md#getting-spire). */
export const SPIRE_VERSION = '1.15.3';

/** Where `npm run spire:build` puts the binaries unless NOTEGATE_SPIRE_BIN names another folder. */
export const DEFAULT_SPIRE_BIN_DIR = fileURLToPath(new URL('../../../../../.spire/bin', import.meta.url));

/** Ours: `--version` answers at once; a binary that does not is not one we can use. */
const VERSION_TIMEOUT_MS = 30_000;

export interface SpireBinaries {
  readonly dir: string;
  readonly server: string;
  readonly agent: string;
}

export type SpireLookup =
  | { readonly found: true; readonly binaries: SpireBinaries }
  | { readonly found: false; readonly reason: string };

/** `spire-server` and `spire-agent` of SPIRE_VERSION in `dir`, or why they are not usable there. */
export async function findSpireBinaries(dir: string): Promise<SpireLookup> {
  const binaries = { dir, server: join(dir, 'spire-server'), agent: join(dir, 'spire-agent') };
  const paths = [binaries.server, binaries.agent];
  const problems = await Promise.all(paths.map(versionProblem));
  const index = problems.findIndex((problem) => problem !== undefined);
  if (index >= 0) return { found: false, reason: `${paths[index]} ${problems[index]}` };
  return { found: true, binaries };
}

async function versionProblem(path: string): Promise<string | undefined> {
  try {
    await access(path, constants.X_OK);
  } catch {
    return 'is missing or not executable';
  }
  // Both daemons print their bare version on stderr.
  const printed = await new Promise<string>((resolve) => {
    execFile(path, ['--version'], { timeout: VERSION_TIMEOUT_MS }, (_err, stdout, stderr) =>
      resolve(`${stdout}${stderr}`.trim()),
    );
  });
  return printed === SPIRE_VERSION ? undefined : `reports version ${JSON.stringify(printed)}, not ${SPIRE_VERSION}`;
}

/** How to get the binaries, for the end of an error message. */
export const SPIRE_BUILD_ADVICE =
  'build them with `npm run spire:build` (needs Go), or set NOTEGATE_SPIRE_BIN to a folder holding ' +
  `spire-server and spire-agent ${SPIRE_VERSION}`;
