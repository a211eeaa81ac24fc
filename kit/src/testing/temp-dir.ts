import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Registrar } from './process-groups.js';

/** A fresh folder (its real path) under the system's temporary folder, removed after the test `t`. */
export function tempDir(t: Registrar, prefix = 'notegate-'): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
