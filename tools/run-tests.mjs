#!/usr/bin/env node
// npm test [-- FILE|FOLDER|PATTERN ...]: runs the compiled tests of kit, auth and rag (README.md#development).
// A FILE or FOLDER may be given as the source (auth/test/policy) or the compiled path (auth/dist/test/policy), from
// the root or the folder npm was called in; any other argument (no '/', no .ts or .js) is a test name pattern (a
// regular expression, node --test-name-pattern); arguments starting with -- go to node as they are. Without arguments every *.test.js runs.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** Paths are read from where `npm test` was typed (npm itself runs the script in the root). */
const CALLER_DIR = process.env.INIT_CWD ?? process.cwd();
const PACKAGES = ['kit', 'auth', 'rag'];
/** Generous: some tests start a whole deployment on a busy 2-core machine. */
const TEST_TIMEOUT_MS = 180_000;

/** The compiled counterpart of a source path: <package>/test/x.test.ts → <package>/dist/test/x.test.js. */
function compiledPath(path) {
  const inRoot = relative(ROOT, resolve(CALLER_DIR, path));
  const [pkg, first, ...rest] = inRoot.split(/[\\/]/);
  if (!PACKAGES.includes(pkg ?? '') || first === 'dist') return inRoot;
  return join(pkg, 'dist', first ?? '', ...rest).replace(/\.ts$/, '.js');
}

/** A name pattern holds neither a '/' nor a file extension; anything else must be a test file or folder. */
function looksLikePath(arg) {
  return /[\\/]|\.(ts|js)$/.test(arg) || existsSync(resolve(CALLER_DIR, arg));
}

function testFilesUnder(path) {
  if (statSync(path).isFile()) return [path];
  return readdirSync(path, { recursive: true })
    .map((entry) => join(path, String(entry)))
    .filter((file) => file.endsWith('.test.js'));
}

const files = [];
const nodeArgs = [];
for (const arg of process.argv.slice(2)) {
  if (arg.startsWith('--')) {
    nodeArgs.push(arg);
  } else if (looksLikePath(arg)) {
    const compiled = compiledPath(arg);
    if (!existsSync(join(ROOT, compiled))) {
      process.stderr.write(
        `npm test: ${arg}: no compiled test file or folder at ${compiled} (a path under ${PACKAGES.join('/, ')}/; a name pattern has no '/')\n`,
      );
      process.exit(2);
    }
    files.push(...testFilesUnder(join(ROOT, compiled)));
  } else {
    nodeArgs.push(`--test-name-pattern=${arg}`);
  }
}
const selected = files.length > 0 ? files : PACKAGES.flatMap((pkg) => testFilesUnder(join(ROOT, pkg, 'dist', 'test')));
if (selected.length === 0) {
  process.stderr.write('npm test: no test file matches\n');
  process.exit(2);
}

const child = spawn(
  process.execPath,
  [
    '--test',
    '--test-reporter=spec',
    `--test-timeout=${TEST_TIMEOUT_MS}`,
    ...nodeArgs,
    ...[...new Set(selected)].sort(),
  ],
  { cwd: ROOT, stdio: 'inherit' },
);
child.on('exit', (code, signal) => {
  process.exitCode = code ?? (signal ? 1 : 0);
});
