import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
/** The root's dev dependency (its package exports no bin path to resolve). */
const DEPCRUISE = path.join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');

/** The rules live in .dependency-cruiser.cjs at the repository root (docs/architecture.md). */
async function cruise(...targets: string[]) {
  const args = [DEPCRUISE, ...targets, '--config', '.dependency-cruiser.cjs', '--output-type', 'err'];
  try {
    const { stdout } = await promisify(execFile)(process.execPath, args, { cwd: ROOT });
    return { code: 0, output: stdout };
  } catch (err) {
    const failed = err instanceof Error ? { ...err } : {};
    return {
      code: 'code' in failed ? Number(failed.code) : -1,
      output: 'stdout' in failed ? String(failed.stdout) : '',
    };
  }
}

describe('the import graph of kit, auth and rag', () => {
  it('has no cycle, no upward import between layers, and no import from rag or kit into auth', async () => {
    const { code, output } = await cruise('kit/src', 'auth/src', 'rag/src');
    assert.equal(code, 0, output);
    assert.match(output, /no dependency violations found/);
  });
});
