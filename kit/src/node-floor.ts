/**
 * The oldest Node.js every notegate executable runs on: 20.12 brought
 * `util.parseEnv`, which the retrieval CLI uses to read `.env`. Checked by
 * each bin entry before it loads anything else, so an older Node.js gets
 * one clear line instead of a link error from deep inside a module.
 */
export const NODE_FLOOR = { major: 20, minor: 12 } as const;

export function meetsNodeFloor(version: string): boolean {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return major > NODE_FLOOR.major || (major === NODE_FLOOR.major && minor >= NODE_FLOOR.minor);
}

/** Exits with a message on stderr when this Node.js is older than the floor. */
export function requireNodeFloor(program: string): void {
  if (meetsNodeFloor(process.versions.node)) return;
  process.stderr.write(
    `${program}: needs Node.js ${NODE_FLOOR.major}.${NODE_FLOOR.minor} or newer; this is ${process.versions.node}\n`,
  );
  process.exit(1);
}
