#!/usr/bin/env node
// The hardening benchmarks one after the other, each printing its table (docs/security.md#security-properties):
//   npx tsc -b && NOTEGATE_SHARED_DIR=<shared folder> node bench/hardening/run.mjs --before <built checkout>
// --before names another built checkout of the repository (for example the commit before the
// hardening) to measure in the same run; without it only this checkout is measured.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
for (const script of [
  'unauthenticated-mcp.mjs',
  'health-under-load.mjs',
  'slow-clients.mjs',
  'replay-flood.mjs',
  'proxy-back-pressure.mjs',
  'large-note-stall.mjs',
]) {
  const run = spawnSync(process.execPath, [join(here, script), ...process.argv.slice(2)], { stdio: 'inherit' });
  if (run.status !== 0) process.exit(run.status ?? 1);
}
