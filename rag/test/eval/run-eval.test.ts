import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { describe, it } from 'node:test';
import { NO_MODEL } from '../../src/config/models.js';
import { noDownloads } from '../../src/embed/download.js';
import { RagError } from '../../src/errors/rag-error.js';
import { loadBeirDataset } from '../../src/eval/beir-dataset.js';
import { buildEvalIndex } from '../../src/eval/eval-index.js';
import { type EvalProgress, runEval } from '../../src/eval/run-eval.js';
import { scoreMode } from '../../src/eval/score-mode.js';
import { DEFAULT_FUSION } from '../../src/search/fusion.js';
import { smallDataset } from '../../test-support/dataset.js';
import { MINILM, model, sharedEmbedder, tempDir } from '../../test-support/fixtures.js';
import { testModelCache } from '../../test-support/test-model/test-model.js';

const OFFLINE = noDownloads(new URL('http://127.0.0.1:9/'));

describe('runEval', () => {
  it('indexes the corpus into a throw-away index and scores the lexical leg (no model)', async (t) => {
    const events: EvalProgress[] = [];
    const work = tempDir(t);
    const report = await runEval({
      datasetDir: smallDataset(t),
      split: 'test',
      modes: ['lexical'],
      model: NO_MODEL,
      modelCacheDir: '/nonexistent',
      download: OFFLINE,
      workDir: work,
      onProgress: (event) => events.push(event),
    });
    assert.deepEqual(
      { ...report, indexMs: 0, modes: report.modes.map((m) => ({ ...m, queryMsP50: 0, queryMsP95: 0 })) },
      {
        datasetDir: report.datasetDir,
        split: 'test',
        modelId: 'none',
        weights: undefined,
        documents: 5,
        chunks: 5,
        queries: 3,
        indexMs: 0,
        lexicalScoring: 'memory',
        modes: [{ mode: 'lexical', ndcgAt10: 1, recallAt10: 1, recallAt100: 1, queryMsP50: 0, queryMsP95: 0 }],
      },
    );
    assert.deepEqual(events[0], { kind: 'loaded', documents: 5, queries: 3 });
    assert.ok(events.some((e) => e.kind === 'index'));
    assert.deepEqual(events.at(-1), { kind: 'queries', mode: 'lexical', done: 3, total: 3 });
    assert.ok(existsSync(work) && readdirSync(work).includes('index.sqlite'), 'a given work folder is kept');
  });

  it('runs every mode with a model, and says whether its weights are the official release', async (t) => {
    const minilm = model(MINILM);
    const report = await runEval({
      datasetDir: smallDataset(t),
      split: 'test',
      modes: ['lexical', 'dense', 'hybrid', 'hybrid+mmr'],
      model: minilm,
      modelCacheDir: testModelCache(),
      download: OFFLINE,
      loadEmbedder: (spec) => sharedEmbedder(spec.id),
    });
    assert.deepEqual(
      report.modes.map((m) => m.mode),
      ['lexical', 'dense', 'hybrid', 'hybrid+mmr'],
    );
    for (const m of report.modes) {
      for (const value of [m.ndcgAt10, m.recallAt10, m.recallAt100]) assert.ok(value >= 0 && value <= 1, m.mode);
      assert.equal(m.recallAt100, 1, `${m.mode}: five documents, all within 100`);
    }
    const official = minilm.files.find((f) => f.path === 'onnx/model_quantized.onnx')?.sha256;
    assert.equal(report.weights?.officialSha256, official);
    assert.match(String(report.weights?.sha256), /^[0-9a-f]{64}$/);
    assert.equal(report.weights?.verified, false, 'the test model is not the released MiniLM');
  });

  it('scores any number of modes and fusions over one index build, and a second build in the same folder embeds nothing', async (t) => {
    const dataset = await loadBeirDataset(smallDataset(t), 'test');
    const work = tempDir(t);
    const embedded: number[] = [];
    const build = () =>
      buildEvalIndex({
        documents: dataset.documents,
        model: model(MINILM),
        modelCacheDir: testModelCache(),
        download: OFFLINE,
        workDir: work,
        loadEmbedder: async (spec) => {
          const shared = await sharedEmbedder(spec.id);
          return {
            ...shared,
            embedTexts: async (inputs) => {
              embedded.push(inputs.length);
              return shared.embedTexts(inputs);
            },
          };
        },
      });
    const built = await build();
    t.after(() => built.close());
    assert.equal(built.chunks, 5);
    const chunksEmbedded = embedded.reduce((a, b) => a + b, 0);
    assert.equal(chunksEmbedded, 5);
    const lexical = await scoreMode(built, dataset, 'lexical');
    assert.equal(lexical.ndcgAt10, 1);
    const fusions = [
      DEFAULT_FUSION,
      { ...DEFAULT_FUSION, method: 'convex' as const },
      { ...DEFAULT_FUSION, depth: 3, guard: { depth: 2, full: 0.5 } },
    ];
    for (const fusion of fusions) {
      const report = await scoreMode(built, dataset, 'hybrid', { fusion });
      assert.equal(report.mode, 'hybrid');
      assert.ok(report.ndcgAt10 >= 0 && report.ndcgAt10 <= 1);
    }
    assert.equal(
      embedded.reduce((a, b) => a + b, 0),
      chunksEmbedded,
      'scoring embeds no passage',
    );
    await built.close();
    const again = await build();
    t.after(() => again.close());
    assert.equal(
      embedded.reduce((a, b) => a + b, 0),
      chunksEmbedded,
      'the kept index is reused',
    );
    assert.deepEqual(await scoreMode(again, dataset, 'lexical', { clock: () => 0 }), {
      ...lexical,
      queryMsP50: 0,
      queryMsP95: 0,
    });
  });

  it('refuses vector modes without a model before reading anything', async (t) => {
    await assert.rejects(
      runEval({
        datasetDir: tempDir(t),
        split: 'test',
        modes: ['lexical', 'hybrid'],
        model: NO_MODEL,
        modelCacheDir: '/nonexistent',
        download: OFFLINE,
      }),
      (err: unknown) =>
        err instanceof RagError && err.code === 'ERR_NO_VECTORS' && /^hybrid: embed_model none/.test(err.message),
    );
  });
});
