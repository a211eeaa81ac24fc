#!/usr/bin/env node
// npm run set-version -- X.Y.Z: the one version of every notegate package (docs/install.md#versions). Writes it
// into each workspace's package.json and pins the packages' dependencies on each other to it; then run
// `npm install` to bring package-lock.json along. (`npm version --workspaces` changes only the versions.)
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SEMVER = /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/;

const version = process.argv[2] ?? '';
if (!SEMVER.test(version)) {
  process.stderr.write(`set-version: '${version}' is not a version (expected X.Y.Z or X.Y.Z-pre)\n`);
  process.exit(2);
}
const read = (dir) => JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8'));
const workspaces = read('.').workspaces;
const manifests = workspaces.map((dir) => ({ dir, manifest: read(dir) }));
const ours = new Set(manifests.map(({ manifest }) => manifest.name));
for (const { dir, manifest } of manifests) {
  manifest.version = version;
  for (const name of Object.keys(manifest.dependencies ?? {})) {
    if (ours.has(name)) manifest.dependencies[name] = version;
  }
  writeFileSync(join(ROOT, dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  process.stdout.write(`${manifest.name} ${version}\n`);
}
process.stdout.write('Now run npm install, so that package-lock.json names the new version.\n');
