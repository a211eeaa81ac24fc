import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { closeServer, listen } from '@notegate/kit/http';
import { MODEL_WEIGHTS_FILE } from '../../src/config/models.js';
import { ensureModelFiles } from '../../src/embed/download.js';
import { modelDir } from '../../src/embed/model-files.js';
import { RagError } from '../../src/errors/rag-error.js';
import { MINILM, model, tempDir } from '../../test-support/fixtures.js';
import { realModelFiles, standinModelCache } from '../../test-support/shared.js';

const minilm = model(MINILM);
const HUB_PREFIX = `/${minilm.hubRepo}/resolve/${minilm.revision}/`;

/** A loopback server in the hub's layout (`/<repo>/resolve/<revision>/<file>`); files map to local paths. */
async function hub(t: TestContext, files: Readonly<Record<string, string>>): Promise<{ url: URL; requests: string[] }> {
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    requests.push(req.url ?? '');
    const file = req.url?.startsWith(HUB_PREFIX) ? files[req.url.slice(HUB_PREFIX.length)] : undefined;
    if (file === undefined) {
      res.writeHead(404).end('Entry not found');
      return;
    }
    res.writeHead(200, { 'Content-Type': 'application/octet-stream' }).end(readFileSync(file));
  });
  const url = await listen(server, '127.0.0.1', 0);
  t.after(() => closeServer(server));
  return { url, requests };
}

const realSmallFiles = () => {
  const dir = path.join(realModelFiles(), minilm.hubRepo);
  return {
    'config.json': path.join(dir, 'config.json'),
    'tokenizer.json': path.join(dir, 'tokenizer.json'),
    'tokenizer_config.json': path.join(dir, 'tokenizer_config.json'),
  };
};

/** A cache that already holds the weights (trusted as found), so only the small files are missing. */
function cacheWithWeights(t: TestContext): string {
  const cache = tempDir(t);
  const weights = path.join(modelDir(cache, minilm), ...MODEL_WEIGHTS_FILE.split('/'));
  mkdirSync(path.dirname(weights), { recursive: true });
  symlinkSync(path.join(modelDir(standinModelCache(), minilm), ...MODEL_WEIGHTS_FILE.split('/')), weights);
  return cache;
}

function ragError(code: RagError['code']) {
  return (err: unknown) => err instanceof RagError && err.code === code;
}

const options = (hubUrl: URL) => ({
  hubUrl,
  fetch: (url: URL, init: { signal: AbortSignal }) => fetch(url, init),
  enabled: true,
});

describe('ensureModelFiles', () => {
  it('downloads each missing file once, verifies its SHA-256 and renames it into place', async (t) => {
    const cache = cacheWithWeights(t);
    const server = await hub(t, realSmallFiles());
    await ensureModelFiles(minilm, cache, options(server.url));
    assert.deepEqual(server.requests.sort(), [
      `${HUB_PREFIX}config.json`,
      `${HUB_PREFIX}tokenizer.json`,
      `${HUB_PREFIX}tokenizer_config.json`,
    ]);
    const dir = modelDir(cache, minilm);
    assert.deepEqual(readFileSync(path.join(dir, 'tokenizer.json')), readFileSync(realSmallFiles()['tokenizer.json']));
    assert.deepEqual(
      readdirSync(dir).sort(),
      ['config.json', 'onnx', 'tokenizer.json', 'tokenizer_config.json'],
      'no temporary files',
    );
    await ensureModelFiles(minilm, cache, options(server.url));
    assert.equal(server.requests.length, 3, 'present files are not fetched again');
  });

  it('refuses and deletes a download whose SHA-256 differs from the pinned one', async (t) => {
    const cache = tempDir(t);
    const standinWeights = path.join(modelDir(standinModelCache(), minilm), ...MODEL_WEIGHTS_FILE.split('/'));
    const server = await hub(t, { ...realSmallFiles(), [MODEL_WEIGHTS_FILE]: standinWeights });
    await assert.rejects(ensureModelFiles(minilm, cache, options(server.url)), (err: unknown) => {
      assert.ok(ragError('ERR_MODEL_HASH_MISMATCH')(err));
      assert.match(
        String(err),
        /model_quantized\.onnx has SHA-256 [0-9a-f]{64}, expected afdb6f1a.*the file was deleted/,
      );
      return true;
    });
    const onnxDir = path.join(modelDir(cache, minilm), 'onnx');
    assert.deepEqual(existsSync(onnxDir) ? readdirSync(onnxDir) : [], [], 'neither the file nor a temporary remains');
  });

  it('turns a 404 into the list of files to place where', async (t) => {
    const cache = cacheWithWeights(t);
    const { 'tokenizer.json': _, ...withoutTokenizer } = realSmallFiles();
    const server = await hub(t, withoutTokenizer);
    await assert.rejects(ensureModelFiles(minilm, cache, options(server.url)), (err: unknown) => {
      assert.ok(ragError('ERR_MODEL_UNAVAILABLE')(err));
      const message = String(err);
      assert.match(message, /could not be downloaded \(HTTP 404 for .*tokenizer\.json\)/);
      assert.match(message, new RegExp(`${path.join(modelDir(cache, minilm), 'tokenizer.json')} \\(sha256 da0e7993`));
      assert.match(message, /from http:\/\/127\.0\.0\.1:\d+\/Xenova\/all-MiniLM-L6-v2\/resolve\/main\/tokenizer\.json/);
      assert.match(message, /or set NOTEGATE_MODEL_CACHE/);
      return true;
    });
  });

  it('offline, says which files to place where without any request', async (t) => {
    const cache = tempDir(t);
    const server = await hub(t, realSmallFiles());
    await assert.rejects(
      ensureModelFiles(minilm, cache, { ...options(server.url), enabled: false }),
      (err: unknown) => {
        assert.ok(ragError('ERR_MODEL_UNAVAILABLE')(err));
        for (const file of minilm.files)
          assert.ok(String(err).includes(path.join(modelDir(cache, minilm), ...file.path.split('/'))));
        return true;
      },
    );
    assert.deepEqual(server.requests, []);
  });

  it('explains an unreachable hub the same way', async (t) => {
    const cache = cacheWithWeights(t);
    const server = createServer();
    const url = await listen(server, '127.0.0.1', 0);
    await closeServer(server);
    await assert.rejects(
      ensureModelFiles(minilm, cache, options(url)),
      /could not be downloaded \(.*\)\.\nPlace these files/,
    );
  });

  it('never downloads a model without pinned hashes', async (t) => {
    const server = await hub(t, {});
    await assert.rejects(
      ensureModelFiles(model('intfloat/multilingual-e5-base'), tempDir(t), options(server.url)),
      /not downloaded because no SHA-256 is pinned for config\.json, tokenizer\.json/,
    );
    assert.deepEqual(server.requests, []);
  });
});
