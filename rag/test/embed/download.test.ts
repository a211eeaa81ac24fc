import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { closeServer, listen } from '@notegate/kit/http';
import { MODEL_WEIGHTS_FILE, type ModelSpec } from '../../src/config/models.js';
import { ensureModelFiles } from '../../src/embed/download.js';
import { modelDir } from '../../src/embed/model-files.js';
import { loadTransformersEmbedder } from '../../src/embed/transformers-embedder.js';
import { RagError } from '../../src/errors/rag-error.js';
import { E5_SMALL, MINILM, model, tempDir } from '../../test-support/fixtures.js';
import { testModelFiles } from '../../test-support/test-model/test-model.js';

const sha256 = (content: Buffer) => createHash('sha256').update(content).digest('hex');

/** The files the fake hub publishes: the test model, in place of MiniLM's. */
const published = testModelFiles(model(MINILM));

/** MiniLM's entry with the SHA-256 of the published files pinned instead of the real ones. */
const minilm: ModelSpec = {
  ...model(MINILM),
  files: model(MINILM).files.map((file) => {
    const content = published.get(file.path);
    if (!content) throw new Error(`the test model has no ${file.path}`);
    return { path: file.path, sha256: sha256(content) };
  }),
};
const pinned = (file: string) => minilm.files.find((f) => f.path === file)?.sha256 ?? '';
const HUB_PREFIX = `/${minilm.hubRepo}/resolve/${minilm.revision}/`;

/** A loopback server in the hub's layout (`/<repo>/resolve/<revision>/<file>`) serving `files` (path → content). */
async function hub(t: TestContext, files: ReadonlyMap<string, Buffer>): Promise<{ url: URL; requests: string[] }> {
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    requests.push(req.url ?? '');
    const content = req.url?.startsWith(HUB_PREFIX) ? files.get(req.url.slice(HUB_PREFIX.length)) : undefined;
    if (content === undefined) {
      res.writeHead(404).end('Entry not found');
      return;
    }
    res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': content.length }).end(content);
  });
  const url = await listen(server, '127.0.0.1', 0);
  t.after(() => closeServer(server));
  return { url, requests };
}

/** The published files but one. */
function without(file: string): Map<string, Buffer> {
  const files = new Map(published);
  files.delete(file);
  return files;
}

/** A cache that already holds the weights (trusted as found), so only the small files are missing. */
function cacheWithWeights(t: TestContext): string {
  const cache = tempDir(t);
  const weights = path.join(modelDir(cache, minilm), ...MODEL_WEIGHTS_FILE.split('/'));
  mkdirSync(path.dirname(weights), { recursive: true });
  writeFileSync(weights, published.get(MODEL_WEIGHTS_FILE) ?? '');
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
    const server = await hub(t, published);
    await ensureModelFiles(minilm, cache, options(server.url));
    assert.deepEqual(server.requests.sort(), [
      `${HUB_PREFIX}config.json`,
      `${HUB_PREFIX}tokenizer.json`,
      `${HUB_PREFIX}tokenizer_config.json`,
    ]);
    const dir = modelDir(cache, minilm);
    assert.deepEqual(readFileSync(path.join(dir, 'tokenizer.json')), published.get('tokenizer.json'));
    assert.deepEqual(
      readdirSync(dir).sort(),
      ['config.json', 'onnx', 'tokenizer.json', 'tokenizer_config.json'],
      'no temporary files',
    );
    await ensureModelFiles(minilm, cache, options(server.url));
    assert.equal(server.requests.length, 3, 'present files are not fetched again');
  });

  it("fills an empty cache with a model the loader then reads, reporting each file's bytes as they arrive", async (t) => {
    const cache = tempDir(t);
    const server = await hub(t, published);
    const progress = new Map<string, [number, number | undefined][]>();
    await ensureModelFiles(minilm, cache, {
      ...options(server.url),
      onBytes: (file, bytesDone, bytesTotal) =>
        progress.set(file.path, [...(progress.get(file.path) ?? []), [bytesDone, bytesTotal]]),
    });
    for (const { path: file } of minilm.files) {
      const steps = progress.get(file) ?? [];
      const size = published.get(file)?.length;
      assert.deepEqual(steps.at(-1), [size, size], file);
      assert.ok(
        steps.every(([done], i) => i === 0 || done > (steps[i - 1]?.[0] ?? 0)),
        `${file}: growing`,
      );
    }
    assert.equal(server.requests.length, minilm.files.length);
    const embedder = await loadTransformersEmbedder(minilm, cache);
    t.after(() => embedder.dispose());
    const [vector] = await embedder.embedTexts(['downloaded']);
    assert.equal(vector?.length, minilm.dimension);
  });

  it('refuses and deletes a download whose SHA-256 differs from the pinned one', async (t) => {
    const cache = tempDir(t);
    // Other weights under MiniLM's name: a tampered or truncated download looks the same.
    const other = testModelFiles(model(E5_SMALL)).get(MODEL_WEIGHTS_FILE) ?? Buffer.alloc(0);
    const server = await hub(t, new Map([...published, [MODEL_WEIGHTS_FILE, other]]));
    await assert.rejects(ensureModelFiles(minilm, cache, options(server.url)), (err: unknown) => {
      assert.ok(ragError('ERR_MODEL_HASH_MISMATCH')(err));
      assert.ok(
        String(err).includes(
          `model_quantized.onnx has SHA-256 ${sha256(other)}, expected ${pinned(MODEL_WEIGHTS_FILE)}`,
        ),
        String(err),
      );
      assert.match(String(err), /the file was deleted/);
      return true;
    });
    const onnxDir = path.join(modelDir(cache, minilm), 'onnx');
    assert.deepEqual(existsSync(onnxDir) ? readdirSync(onnxDir) : [], [], 'neither the file nor a temporary remains');
  });

  it('turns a 404 into the list of files to place where', async (t) => {
    const cache = cacheWithWeights(t);
    const server = await hub(t, without('tokenizer.json'));
    await assert.rejects(ensureModelFiles(minilm, cache, options(server.url)), (err: unknown) => {
      assert.ok(ragError('ERR_MODEL_UNAVAILABLE')(err));
      const message = String(err);
      assert.match(message, /could not be downloaded \(HTTP 404 for .*tokenizer\.json\)/);
      assert.ok(
        message.includes(
          `${path.join(modelDir(cache, minilm), 'tokenizer.json')} (sha256 ${pinned('tokenizer.json')})`,
        ),
        message,
      );
      assert.match(message, /from http:\/\/127\.0\.0\.1:\d+\/Xenova\/all-MiniLM-L6-v2\/resolve\/main\/tokenizer\.json/);
      assert.match(message, /or set NOTEGATE_MODEL_CACHE/);
      // Both ways out: the weights (placed or installed), or an index that needs no model.
      assert.match(
        message,
        /\n {2}notegate-rag model install --model sentence-transformers\/all-MiniLM-L6-v2 FILE\.\.\.\n/,
      );
      assert.match(message, /Or go without vectors: "embed_model": "none" .* lexical-only index/);
      return true;
    });
  });

  it('offline, says which files to place where without any request', async (t) => {
    const cache = tempDir(t);
    const server = await hub(t, published);
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
    const server = await hub(t, new Map());
    await assert.rejects(
      ensureModelFiles(model('intfloat/multilingual-e5-base'), tempDir(t), options(server.url)),
      /not downloaded because no SHA-256 is pinned for config\.json, tokenizer\.json/,
    );
    assert.deepEqual(server.requests, []);
  });
});
