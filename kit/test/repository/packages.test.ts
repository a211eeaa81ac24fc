import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { isRecord } from '../../src/records.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');

/** One workspace as `npm pack --dry-run --json` describes its tarball, with its manifest. */
interface Packed {
  readonly name: string;
  readonly version: string;
  readonly dir: string;
  readonly files: ReadonlySet<string>;
  readonly manifest: Record<string, unknown>;
}

function readJson(file: string): Record<string, unknown> {
  const value: unknown = JSON.parse(readFileSync(file, 'utf8'));
  assert.ok(isRecord(value), `${file} holds a JSON object`);
  return value;
}

function stringMap(value: unknown): Record<string, string> {
  if (!isRecord(value)) return {};
  return Object.fromEntries(
    Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
}

async function packWorkspaces(): Promise<Packed[]> {
  const workspaces = readJson(path.join(ROOT, 'package.json')).workspaces;
  assert.ok(Array.isArray(workspaces));
  const { stdout } = await promisify(execFile)('npm', ['pack', '--workspaces', '--dry-run', '--json'], {
    cwd: ROOT,
    maxBuffer: 64 * 1024 * 1024,
  });
  const listed: unknown = JSON.parse(stdout);
  assert.ok(Array.isArray(listed));
  return listed.map((entry: unknown, index) => {
    assert.ok(isRecord(entry) && Array.isArray(entry.files));
    const dir = path.join(ROOT, String(workspaces[index]));
    const manifest = readJson(path.join(dir, 'package.json'));
    assert.equal(entry.name, manifest.name, 'npm pack lists the workspaces in their order');
    const files = entry.files.map((file: unknown) => (isRecord(file) ? String(file.path) : ''));
    return { name: String(entry.name), version: String(entry.version), dir, files: new Set(files), manifest };
  });
}

/** Every path an `exports` value points to (conditions nest). */
function exportTargets(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  return isRecord(value) ? Object.values(value).flatMap(exportTargets) : [];
}

/** The package names a compiled module loads: static and dynamic imports, and `import.meta.resolve` of a name. */
function bareImports(source: string): string[] {
  const specifiers = [
    ...source.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|import\.meta\.resolve\(\s*)'([^']+)'/g),
  ].map((match) => match[1] ?? '');
  return specifiers
    .filter((specifier) => /^@?[a-z0-9][\w./@-]*$/i.test(specifier) && !specifier.startsWith('node:'))
    .map((specifier) => specifier.split('/', specifier.startsWith('@') ? 2 : 1).join('/'));
}

/**
 * docs/install.md#packages: what `npm pack` turns each workspace into. One version for all; our own
 * dependencies pinned to it; run-time dependencies exactly what the shipped code loads; no tests, benches or
 * source maps without their source; every entry point present.
 */
describe('the packages npm pack makes of the workspaces', () => {
  let packages: Packed[] = [];
  before(async () => {
    packages = await packWorkspaces();
  });

  it('are the package users install and the four it is made of', () => {
    assert.deepEqual(packages.map((p) => p.name).sort(), [
      '@notegate/auth',
      '@notegate/demo-vaults',
      '@notegate/kit',
      '@notegate/rag',
      'notegate',
    ]);
    for (const p of packages) assert.equal(p.manifest.private, undefined, `${p.name} can be published`);
  });

  it('share one version, and name each other by exactly that version', () => {
    const [first] = packages;
    assert.ok(first);
    const ours = new Set(packages.map((p) => p.name));
    for (const p of packages) {
      assert.equal(p.version, first.version, `${p.name}'s version`);
      for (const [name, range] of Object.entries(stringMap(p.manifest.dependencies))) {
        if (ours.has(name)) assert.equal(range, first.version, `${p.name} depends on ${name}`);
      }
    }
  });

  it('hold no tests, benches, build state or conformance runs', () => {
    for (const p of packages) {
      const stray = [...p.files].filter((file) =>
        /(^|\/)(test|test-support|bench|conformance)\/|\.tsbuildinfo$|(^|\/)tsconfig\.json$/.test(file),
      );
      assert.deepEqual(stray, [], `${p.name} ships only what runs`);
    }
  });

  it('hold the source each source map points to', () => {
    for (const p of packages) {
      for (const map of [...p.files].filter((file) => file.endsWith('.map'))) {
        const sources = readJson(path.join(p.dir, map)).sources;
        assert.ok(Array.isArray(sources) && sources.length > 0, map);
        for (const source of sources) {
          const target = path.posix.normalize(path.posix.join(path.posix.dirname(map), String(source)));
          assert.ok(p.files.has(target), `${p.name}: ${map} points to ${target}, which is not in the package`);
        }
      }
    }
  });

  it('hold every file their exports and bin entries name', () => {
    for (const p of packages) {
      const targets = [...exportTargets(p.manifest.exports), ...Object.values(stringMap(p.manifest.bin))];
      for (const target of targets) {
        assert.ok(p.files.has(path.posix.normalize(target)), `${p.name}: ${target} is in the package`);
      }
    }
  });

  it('depend at run time on exactly the packages their code loads', () => {
    for (const p of packages) {
      const loaded = new Set(
        [...p.files]
          .filter((file) => file.endsWith('.js'))
          .flatMap((file) => bareImports(readFileSync(path.join(p.dir, file), 'utf8'))),
      );
      const declared = Object.keys({
        ...stringMap(p.manifest.dependencies),
        ...stringMap(p.manifest.peerDependencies),
      });
      assert.deepEqual([...loaded].sort(), declared.sort(), `${p.name}: what the code loads = what it declares`);
    }
  });

  it('hold the search page that notegate-rag serve reads beside its code (docs/retrieval.md#search-page)', () => {
    const rag = packages.find((p) => p.name === '@notegate/rag');
    assert.ok(rag);
    const modules = readdirSync(path.join(rag.dir, 'dist', 'page', 'src')).filter((file) => file.endsWith('.js'));
    assert.ok(modules.includes('main.js'), 'the page is compiled');
    const page = ['page/index.html', 'page/search.css', 'page/icon.svg', ...modules.map((m) => `dist/page/src/${m}`)];
    assert.deepEqual(
      page.filter((file) => !rag.files.has(file)),
      [],
    );
  });
});
