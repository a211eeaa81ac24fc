import { constants, type Stats } from 'node:fs';
import { access, chmod, lstat, mkdir, mkdtemp, rename, rm, stat } from 'node:fs/promises';
import { connect } from 'node:net';
import { basename, dirname, join, resolve } from 'node:path';
import { errorMessage } from '@notegate/kit';
import { UsageError } from '@notegate/kit/cli';
import { ownershipProblem } from '../shared/owner-only.js';

/** Linux sun_path holds 108 bytes including the terminating NUL. */
const MAX_SOCKET_PATH_BYTES = 107;
/** A socket is bound in `<socket-dir>/.bind-XXXXXX/` first (see bindPrivately): 14 bytes more than its final path. */
const STAGING_PREFIX = '.bind-';
const STAGING_EXTRA_BYTES = STAGING_PREFIX.length + 'XXXXXX/'.length;
/** Owner-only: who can connect to a workload's socket is attested as that workload (docs/protocol.md#development-identity-provider-notegate-identity-provider). */
const SOCKET_MODE = 0o600;

/**
 * Returns the absolute directory, created owner-only (0700) when absent. An existing directory must
 * belong to this user and be writable by nobody else (docs/security.md#files-the-services-trust): whoever
 * can write there could put their own socket, or a link to it, where a workload connects. Anything
 * unusable is a start-up error naming the directory.
 */
export async function prepareSocketDir(dir: string): Promise<string> {
  const absolute = resolve(dir);
  const fail = (why: string) => new UsageError(`--socket-dir ${absolute}: ${why}`);
  let info: Stats;
  try {
    info = await stat(absolute);
  } catch {
    try {
      await mkdir(absolute, { recursive: true, mode: 0o700 });
      info = await stat(absolute);
    } catch (mkdirError) {
      throw fail(`cannot create: ${errorMessage(mkdirError)}`);
    }
  }
  if (!info.isDirectory()) throw fail('exists and is not a directory');
  const problem = ownershipProblem(info, '; use a directory of your own');
  if (problem !== undefined) throw fail(problem);
  try {
    await access(absolute, constants.W_OK | constants.X_OK);
  } catch {
    throw fail('is not writable');
  }
  return absolute;
}

export function socketPathFor(socketDir: string, name: string): string {
  const path = join(socketDir, `${name}.sock`);
  if (Buffer.byteLength(path) + STAGING_EXTRA_BYTES > MAX_SOCKET_PATH_BYTES) {
    throw new UsageError(
      `--socket-dir ${socketDir}: socket path ${path} is longer than ${MAX_SOCKET_PATH_BYTES - STAGING_EXTRA_BYTES} bytes`,
    );
  }
  return path;
}

/**
 * Binds a unix socket at `path` so that it never exists, not even for an instant, where another user
 * could connect to it (connecting is the attestation): `bind` creates it in a fresh directory that only
 * this user can enter (mkdtemp, 0700) beside its final place, whatever the umask; there it is made
 * owner-only, and only then renamed into place (rename(2) in one directory tree is atomic, and the
 * listening socket keeps working under its new name).
 */
export async function bindPrivately(path: string, bind: (stagingPath: string) => Promise<void>): Promise<void> {
  const staging = await mkdtemp(join(dirname(path), STAGING_PREFIX));
  try {
    const stagingPath = join(staging, basename(path));
    await bind(stagingPath);
    await chmod(stagingPath, SOCKET_MODE);
    await rename(stagingPath, path);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/**
 * Removes a socket file left behind by a crashed run; refuses to touch a live socket (another
 * provider is serving it) or a file that is not a socket.
 */
export async function clearStaleSocket(path: string): Promise<void> {
  let isSocket: boolean;
  try {
    isSocket = (await lstat(path)).isSocket();
  } catch {
    return;
  }
  if (!isSocket) throw new UsageError(`--socket-dir: ${path} exists and is not a socket`);
  if (await acceptsConnections(path)) throw new UsageError(`--socket-dir: ${path} is in use by another process`);
  await rm(path, { force: true });
}

function acceptsConnections(path: string): Promise<boolean> {
  return new Promise((resolvePromise) => {
    const socket = connect(path);
    socket.once('connect', () => {
      socket.destroy();
      resolvePromise(true);
    });
    socket.once('error', () => resolvePromise(false));
  });
}
