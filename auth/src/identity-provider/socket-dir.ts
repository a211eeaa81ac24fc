import { constants } from 'node:fs';
import { access, lstat, mkdir, rm, stat } from 'node:fs/promises';
import { connect } from 'node:net';
import { join, resolve } from 'node:path';
import { errorMessage } from '@notegate/kit';
import { UsageError } from '@notegate/kit/cli';

/** Linux sun_path holds 108 bytes including the terminating NUL. */
const MAX_SOCKET_PATH_BYTES = 107;

/** Returns the absolute directory, created owner-only (0700) when absent; anything unusable is a start-up error. */
export async function prepareSocketDir(dir: string): Promise<string> {
  const absolute = resolve(dir);
  const fail = (why: string) => new UsageError(`--socket-dir ${absolute}: ${why}`);
  try {
    const info = await stat(absolute);
    if (!info.isDirectory()) throw fail('exists and is not a directory');
  } catch (err) {
    if (err instanceof UsageError) throw err;
    try {
      await mkdir(absolute, { recursive: true, mode: 0o700 });
    } catch (mkdirError) {
      throw fail(`cannot create: ${errorMessage(mkdirError)}`);
    }
  }
  try {
    await access(absolute, constants.W_OK | constants.X_OK);
  } catch {
    throw fail('is not writable');
  }
  return absolute;
}

export function socketPathFor(socketDir: string, name: string): string {
  const path = join(socketDir, `${name}.sock`);
  if (Buffer.byteLength(path) > MAX_SOCKET_PATH_BYTES) {
    throw new UsageError(
      `--socket-dir ${socketDir}: socket path ${path} is longer than ${MAX_SOCKET_PATH_BYTES} bytes`,
    );
  }
  return path;
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
