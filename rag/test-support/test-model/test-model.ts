import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { findModel, MODEL_WEIGHTS_FILE, type ModelSpec } from '../../src/config/models.js';
import { modelDir } from '../../src/embed/model-files.js';
import { tinyBertOnnx } from './tiny-bert.js';
import { buildVocabulary, tokenizerFiles } from './wordpiece.js';

export const MINILM = 'sentence-transformers/all-MiniLM-L6-v2';
export const E5_SMALL = 'intfloat/multilingual-e5-small';

/** The whitelisted models the tests load; both are 384-wide, so one generator shape fits. */
const TEST_MODEL_IDS = [MINILM, E5_SMALL];

/** Positions the model has embeddings for: the longest window of the models above. */
const MAX_POSITIONS = 512;

/**
 * The files of the test model standing in for `model` (path inside the model
 * folder → content): a one-layer BERT with seeded random weights and a
 * generated WordPiece tokenizer. Vectors have the model's dimension but carry no
 * meaning: tests use them for plumbing (loading, tokenization, pooling,
 * batching, crash safety), never for retrieval quality.
 */
export function testModelFiles(model: ModelSpec): ReadonlyMap<string, Buffer> {
  const vocabulary = buildVocabulary();
  const json = (value: unknown) => Buffer.from(`${JSON.stringify(value, null, 2)}\n`);
  const config = {
    model_type: 'bert',
    architectures: ['BertModel'],
    hidden_size: model.dimension,
    num_hidden_layers: 1,
    num_attention_heads: 1,
    max_position_embeddings: MAX_POSITIONS,
    type_vocab_size: 2,
    vocab_size: vocabulary.size,
    pad_token_id: 0,
  };
  const weights = tinyBertOnnx({
    vocabularySize: vocabulary.size,
    hiddenSize: model.dimension,
    maxPositions: MAX_POSITIONS,
    seed: model.hubRepo,
  });
  return new Map([
    ['config.json', json(config)],
    ...Object.entries(tokenizerFiles(vocabulary, model.windowTokens)).map(
      ([file, value]) => [file, json(value)] as const,
    ),
    [MODEL_WEIGHTS_FILE, Buffer.from(weights)],
  ]);
}

let cached: string | undefined;

/**
 * A model cache folder (the transformers.js local layout) holding the test
 * models. Generated on first use into the system's temp folder under a name
 * derived from the content, so every test process of a run (and later runs of
 * the same generator) shares one copy, and a changed generator gets a new
 * folder. Test files run in parallel: each writes into a private folder and
 * renames it into place; a process that loses the race drops its copy.
 */
export function testModelCache(): string {
  if (cached !== undefined) return cached;
  const models = TEST_MODEL_IDS.map((id) => {
    const spec = findModel(id);
    if (!spec) throw new Error(`${id} is not a whitelisted model`);
    return { spec, files: testModelFiles(spec) };
  });
  const digest = createHash('sha256');
  for (const { spec, files } of models) {
    for (const [file, content] of files) digest.update(`${spec.hubRepo}/${file}\0`).update(content);
  }
  const dir = path.join(tmpdir(), `notegate-test-models-${digest.digest('hex').slice(0, 16)}`);
  if (!existsSync(dir)) {
    const staging = `${dir}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
    for (const { spec, files } of models) {
      for (const [file, content] of files) {
        const target = path.join(modelDir(staging, spec), ...file.split('/'));
        mkdirSync(path.dirname(target), { recursive: true });
        writeFileSync(target, content);
      }
    }
    try {
      renameSync(staging, dir);
    } catch (err) {
      rmSync(staging, { recursive: true, force: true });
      // Another test process renamed its identical copy first.
      if (!existsSync(dir)) throw err;
    }
  }
  cached = dir;
  return dir;
}
