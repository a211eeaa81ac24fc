import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isRecord } from '../../src/records.js';
import { type Finished, type Registrar, runInGroup, spawnInGroup, tempDir, waitFor } from '../../src/testing/index.js';

/**
 * docs/install.md#install-test: the packages as users get them. Packs every workspace, installs the tarballs the
 * way `npm install -g` does into an empty temporary prefix (nothing of the repository beside it), and runs the
 * commands from there. Not part of `npm test` (it compiles better-sqlite3 from source where no prebuilt binary
 * can be fetched: minutes); `npm run test:install` runs it, and so does `.ci/run`.
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');

/** The two install scripts the runtime needs approved: the SQLite binding, and protobufjs under @grpc/proto-loader. */
const ALLOWED_SCRIPTS = 'better-sqlite3,protobufjs';
/** The embedding runtime's install scripts: onnxruntime-node's (a CUDA download, skipped here) and protobufjs's. */
const VECTOR_SCRIPTS = 'onnxruntime-node,protobufjs';

/** Development and benchmark tools, and the optional embedding runtime: none belongs in the runtime install. */
const NOT_AT_RUN_TIME = [
  'typescript',
  '@biomejs/biome',
  'dependency-cruiser',
  '@modelcontextprotocol/inspector',
  '@modelcontextprotocol/conformance',
  '@modelcontextprotocol/sdk',
  'onnx-proto',
  'sqlite-vec',
  'parse-prometheus-text-format',
  'autocannon',
  'playwright-core',
  'oidc-provider',
  'oauth4webapi',
  '@huggingface/transformers',
  'onnxruntime-node',
  'onnxruntime-web',
];

/** The environment of a user's shell: none of the variables `npm run` sets for the repository. */
function userEnvironment(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !/^(npm_|INIT_CWD$|NODE_PATH$|NODE_OPTIONS$|ONNXRUNTIME_NODE_INSTALL$)/i.test(name),
    ),
  );
  return { ...env, ...extra };
}

/** The names of every package installed under `dir` (a node_modules folder), at any depth. */
function installedPackages(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
    .flatMap((entry) => {
      const names = entry.name.startsWith('@')
        ? readdirSync(path.join(dir, entry.name)).map((child) => `${entry.name}/${child}`)
        : [entry.name];
      return names.flatMap((name) => [name, ...installedPackages(path.join(dir, name, 'node_modules'))]);
    });
}

function seconds(startMs: number): string {
  return ((performance.now() - startMs) / 1000).toFixed(1);
}

function assertRan(run: Finished, what: string): void {
  assert.equal(run.code, 0, `${what} exited ${run.code}\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}`);
}

describe('the packed packages, installed into an empty prefix', () => {
  const cleanups: (() => unknown)[] = [];
  const registrar: Registrar = { after: (fn) => cleanups.push(fn) };
  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  let prefix = '';
  let work = '';
  let modelCache = '';
  let install: Finished = { code: -1, stdout: '', stderr: '' };
  const timings: string[] = [];
  /** The user's environment with the installed commands first on PATH. */
  let env: NodeJS.ProcessEnv = {};
  /** Runs an installed command in the work folder, as a user's shell would. */
  let run: (command: string, ...args: string[]) => Promise<Finished> = () => Promise.reject(new Error('not installed'));

  before(async () => {
    const top = tempDir(registrar, 'notegate-install-');
    const tarballs = path.join(top, 'tarballs');
    prefix = path.join(top, 'prefix');
    work = path.join(top, 'work');
    for (const dir of [tarballs, prefix, work]) mkdirSync(dir);
    modelCache = path.join(top, 'models');
    env = userEnvironment({ NOTEGATE_MODEL_CACHE: modelCache });

    let startMs = performance.now();
    const packed = await runInGroup(
      registrar,
      'npm',
      ['pack', '--workspaces', '--pack-destination', tarballs],
      env,
      ROOT,
    );
    assertRan(packed, 'npm pack');
    timings.push(`pack ${seconds(startMs)} s`);

    startMs = performance.now();
    const files = readdirSync(tarballs).map((file) => path.join(tarballs, file));
    const installArgs = ['install', '--global', '--prefix', prefix, `--allow-scripts=${ALLOWED_SCRIPTS}`];
    install = await runInGroup(registrar, 'npm', [...installArgs, '--no-audit', '--no-fund', ...files], env, work);
    assertRan(install, 'npm install');
    timings.push(`install ${seconds(startMs)} s`);

    env = { ...env, PATH: `${path.join(prefix, 'bin')}${path.delimiter}${env.PATH ?? ''}` };
    run = (command, ...args) => runInGroup(registrar, command, args, env, work);
  });

  it('installs without a warning, and without any development tool or the embedding runtime', (t) => {
    assert.doesNotMatch(install.stderr, /npm warn/i, install.stderr);
    const installed = installedPackages(path.join(prefix, 'lib', 'node_modules'));
    assert.ok(installed.includes('notegate') && installed.includes('better-sqlite3'), installed.join(' '));
    assert.deepEqual(
      NOT_AT_RUN_TIME.filter((name) => installed.includes(name)),
      [],
    );
    t.diagnostic(`${timings.join(', ')}; ${new Set(installed).size} packages`);
  });

  it('runs notegate --help, and each command reports the one version', async () => {
    const help = await run('notegate', '--help');
    assertRan(help, 'notegate --help');
    for (const command of ['identity-provider', 'authz', 'notes-server', 'agent', 'proxy', 'token', 'demo']) {
      assert.match(help.stdout, new RegExp(`^  ${command} `, 'm'));
    }
    const versions = await Promise.all(
      ['notegate', 'notegate-rag', 'mcp-svid-stdio'].map(async (command) => (await run(command, '--version')).stdout),
    );
    const manifest: unknown = JSON.parse(readFileSync(path.join(ROOT, 'notegate', 'package.json'), 'utf8'));
    const version = isRecord(manifest) ? manifest.version : undefined;
    assert.deepEqual(versions, [`notegate ${version}\n`, `notegate-rag ${version}\n`, `mcp-svid-stdio ${version}\n`]);
  });

  it('runs notegate demo: its vault is installed, and all four scenarios pass', async () => {
    const demo = await run('notegate', 'demo');
    assertRan(demo, 'notegate demo');
    assert.match(demo.stdout, /All 4 scenarios behaved as expected/);
  });

  it('indexes a folder of notes with notegate-rag and finds a note', async () => {
    mkdirSync(path.join(work, 'notes', 'operations'), { recursive: true });
    writeFileSync(
      path.join(work, 'notes', 'operations', 'key-rotation.md'),
      '# Key rotation\n\nRotate the signing keys every ninety days.\n',
    );
    const config = { embed_model: 'none', vaults: [{ id: 'notes', path: 'notes' }] };
    writeFileSync(path.join(work, 'vaults.json'), JSON.stringify(config));
    assertRan(await run('notegate-rag', 'index', '--config', 'vaults.json'), 'notegate-rag index');
    const search = await run('notegate-rag', 'search', '--config', 'vaults.json', 'rotate the keys');
    assertRan(search, 'notegate-rag search');
    assert.match(search.stdout, /operations\/key-rotation\.md/);
  });

  it('notegate-rag init makes a folder searchable from anywhere: the per-user config, then index and search', async () => {
    // A user's own folder, outside any repository, and a home of its own: init writes the per-user config
    // (docs/retrieval.md#where-the-config-lives) and every later command finds it with no --config.
    const home = path.join(work, 'home');
    const notes = path.join(home, 'My Notes');
    mkdirSync(path.join(notes, 'projects'), { recursive: true });
    writeFileSync(path.join(notes, 'projects', 'garden.md'), '# Garden\n\nWater the tomatoes every evening.\n');
    const userEnv = {
      ...env,
      HOME: home,
      XDG_CONFIG_HOME: path.join(home, '.config'),
      XDG_DATA_HOME: path.join(home, '.local', 'share'),
    };
    const inHome = (...args: string[]) => runInGroup(registrar, 'notegate-rag', args, userEnv, home);
    const init = await inHome('init', notes);
    assertRan(init, 'notegate-rag init');
    assert.match(init.stdout, /my-notes/);
    // No embedding runtime is installed yet: the index is lexical-only and works at once, offline.
    assert.match(init.stdout, /lexical-only/);
    assert.ok(existsSync(path.join(home, '.config', 'notegate', 'vaults.json')), init.stdout);
    const index = await inHome('index');
    assertRan(index, 'notegate-rag index after init');
    assert.match(index.stdout, /^my-notes: 1 new/m);
    assert.ok(existsSync(path.join(home, '.local', 'share', 'notegate', 'index.sqlite')), index.stdout);
    const search = await runInGroup(registrar, 'notegate-rag', ['search', 'water the tomatoes'], userEnv, notes);
    assertRan(search, 'notegate-rag search after init');
    assert.match(search.stdout, /projects\/garden\.md/);
  });

  it('serves the search page and its modules from the installed package (notegate-rag serve)', async () => {
    const serve = spawnInGroup(registrar, 'notegate-rag', ['serve', '--config', 'vaults.json', '--port', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env,
      cwd: work,
    });
    let stdout = '';
    serve.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    const listening = await waitFor('notegate-rag serve to listen', () => /^listening on (\S+)$/m.exec(stdout)?.[1]);
    const page = await fetch(new URL('/', listening));
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-security-policy') ?? '', /script-src 'self'/);
    // The page's script and every module it imports, as the browser would load them.
    const pending = [...(await page.text()).matchAll(/src="([^"]+\.js)"/g)].map((m) => new URL(m[1] ?? '', listening));
    assert.ok(pending.length > 0, 'the page loads its script');
    const loaded = new Set<string>();
    for (let module = pending.pop(); module !== undefined; module = pending.pop()) {
      if (loaded.has(module.href)) continue;
      loaded.add(module.href);
      const reply = await fetch(module);
      assert.equal(reply.status, 200, module.href);
      for (const m of (await reply.text()).matchAll(/\bfrom '(\.[^']+)'/g)) pending.push(new URL(m[1] ?? '', module));
    }
    assert.ok(loaded.size > 1, [...loaded].join(' '));
    serve.kill('SIGTERM');
  });

  it('says which package to add when the config asks for vectors', async () => {
    const config = { embed_model: 'intfloat/multilingual-e5-small', vaults: [{ id: 'notes', path: 'notes' }] };
    writeFileSync(path.join(work, 'vectors.json'), JSON.stringify({ ...config, index_path: 'vectors.sqlite' }));
    const index = await run('notegate-rag', 'index', '--config', 'vectors.json');
    assert.notEqual(index.code, 0);
    assert.match(index.stderr, /npm install @huggingface\/transformers@\^4/);
    assert.equal(existsSync(modelCache), false, 'nothing was downloaded');
  });

  it('with @huggingface/transformers added beside it, indexes with vectors and searches hybrid', async (t) => {
    const rag: unknown = JSON.parse(readFileSync(path.join(ROOT, 'rag', 'package.json'), 'utf8'));
    const range =
      isRecord(rag) && isRecord(rag.peerDependencies) ? rag.peerDependencies['@huggingface/transformers'] : '';
    const startMs = performance.now();
    const added = await runInGroup(
      registrar,
      'npm',
      [
        'install',
        '--global',
        '--prefix',
        prefix,
        `--allow-scripts=${VECTOR_SCRIPTS}`,
        '--no-audit',
        '--no-fund',
        `@huggingface/transformers@${String(range)}`,
      ],
      { ...env, ONNXRUNTIME_NODE_INSTALL: 'skip' },
      work,
    );
    assertRan(added, 'npm install @huggingface/transformers');
    assert.doesNotMatch(added.stderr, /npm warn/i, added.stderr);
    t.diagnostic(`transformers ${seconds(startMs)} s`);

    // The repository's generated test model (rag's test support) stands in for MiniLM's weights.
    const generator = pathToFileURL(path.join(ROOT, 'rag/dist/test-support/test-model/test-model.js')).href;
    const cache = await runInGroup(
      registrar,
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `process.stdout.write((await import(${JSON.stringify(generator)})).testModelCache())`,
      ],
      env,
      ROOT,
    );
    assertRan(cache, 'the test model');
    const withCache = { ...env, NOTEGATE_MODEL_CACHE: cache.stdout };
    const config = { embed_model: 'sentence-transformers/all-MiniLM-L6-v2', vaults: [{ id: 'notes', path: 'notes' }] };
    writeFileSync(path.join(work, 'minilm.json'), JSON.stringify({ ...config, index_path: 'minilm.sqlite' }));
    const index = await runInGroup(registrar, 'notegate-rag', ['index', '--config', 'minilm.json'], withCache, work);
    assertRan(index, 'notegate-rag index with a model');
    assert.match(index.stdout, /1 chunks embedded/);
    const search = await runInGroup(
      registrar,
      'notegate-rag',
      ['search', '--config', 'minilm.json', '--mode', 'hybrid', 'rotate the keys'],
      withCache,
      work,
    );
    assertRan(search, 'notegate-rag search --mode hybrid');
    assert.match(search.stdout, /operations\/key-rotation\.md/);
  });
});
