#!/usr/bin/env node
// Removes compiled files whose TypeScript source is gone. `tsc -b` writes outputs but never deletes the
// outputs of a moved or deleted source, and those would still run as tests and ship in the packages
// (docs/install.md#packages). Each project compiles `<project>/<path>.ts` to `<project>/dist/<path>.js`
// (rootDir '.', outDir 'dist'), with .d.ts and .map files beside it.
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PROJECTS = ['kit', 'auth', 'rag', 'bench/rag'];
const OUTPUT = /\.(js|d\.ts)(\.map)?$/;

let removed = 0;
for (const project of PROJECTS) {
  const dist = join(ROOT, project, 'dist');
  if (!existsSync(dist)) continue;
  for (const entry of readdirSync(dist, { recursive: true })) {
    const relative = String(entry);
    if (!OUTPUT.test(relative)) continue;
    const source = join(ROOT, project, relative.replace(OUTPUT, '.ts'));
    if (existsSync(source)) continue;
    rmSync(join(dist, relative), { force: true });
    removed += 1;
  }
}
if (removed > 0) process.stdout.write(`prune-dist: removed ${removed} compiled files whose source is gone\n`);
