import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { Tensor } from '@huggingface/transformers';
import { MODEL_WEIGHTS_FILE } from '../../src/config/models.js';
import { modelDir } from '../../src/embed/model-files.js';
import { loadPretrained } from '../../src/embed/transformers-embedder.js';
import { spawnNode } from '../../test-support/child.js';
import { E5_SMALL, MINILM, model, sharedEmbedder, tempDir } from '../../test-support/fixtures.js';
import { testModelCache, testModelFiles } from '../../test-support/test-model/test-model.js';

const MODEL_FILES = [
  'config.json',
  'special_tokens_map.json',
  'tokenizer.json',
  'tokenizer_config.json',
  MODEL_WEIGHTS_FILE,
].sort();

/** Runs the raw graph on one row of token ids (int64 [1, n]) with the given mask; returns last_hidden_state. */
async function hiddenStates(ids: readonly number[], mask: readonly number[]): Promise<Tensor> {
  const { Tensor } = await import('@huggingface/transformers');
  const { onnx } = await loadPretrained(model(MINILM), testModelCache());
  const row = (values: readonly number[]) =>
    new Tensor('int64', BigInt64Array.from(values, BigInt), [1, values.length]);
  const output: unknown = await onnx({
    input_ids: row(ids),
    attention_mask: row(mask),
    token_type_ids: row(ids.map(() => 0)),
  });
  await onnx.dispose();
  assert.ok(output instanceof Object && 'last_hidden_state' in output && output.last_hidden_state instanceof Tensor);
  return output.last_hidden_state;
}

/** The first `count` token vectors of a [1, n, dim] output, flattened. */
function firstTokens(hidden: Tensor, count: number): number[] {
  const dimension = hidden.dims[2] ?? 0;
  return Array.from(hidden.data as Float32Array).slice(0, count * dimension);
}

function maxDifference(a: readonly number[], b: readonly number[]): number {
  assert.equal(a.length, b.length);
  return Math.max(...a.map((x, i) => Math.abs(x - (b[i] ?? Number.NaN))));
}

describe('the generated test model', () => {
  it('is written once per content into one cache folder with every file transformers.js reads', () => {
    const cache = testModelCache();
    assert.equal(testModelCache(), cache);
    for (const id of [MINILM, E5_SMALL]) {
      const dir = modelDir(cache, model(id));
      const files = readdirSync(dir, { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile())
        .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'));
      assert.deepEqual(files.sort(), MODEL_FILES);
      for (const [file, content] of testModelFiles(model(id))) {
        assert.deepEqual(readFileSync(path.join(dir, file)), content, `${id} ${file} as generated`);
      }
      // A few MB at most: the suite regenerates it whenever the generator changes.
      assert.ok(statSync(path.join(dir, MODEL_WEIGHTS_FILE)).size < 2 * 1024 * 1024);
    }
  });

  it('is deterministic, with weights seeded per model', () => {
    const first = testModelFiles(model(MINILM));
    assert.deepEqual(testModelFiles(model(MINILM)), first);
    const e5 = testModelFiles(model(E5_SMALL));
    assert.deepEqual(e5.get('tokenizer.json'), first.get('tokenizer.json'));
    assert.notDeepEqual(e5.get(MODEL_WEIGHTS_FILE), first.get(MODEL_WEIGHTS_FILE));
  });

  it('survives test processes generating it at the same time: one folder, no leftovers', async (t) => {
    const tmp = tempDir(t);
    const script = path.join(tmp, 'generate.mjs');
    const generator = new URL('../../test-support/test-model/test-model.js', import.meta.url).href;
    writeFileSync(script, `import { testModelCache } from '${generator}';\nconsole.log(testModelCache());\n`);
    const children = Array.from({ length: 4 }, () =>
      spawnNode(t, script, [], { env: { ...process.env, TMPDIR: tmp, TMP: tmp, TEMP: tmp } }),
    );
    assert.deepEqual(await Promise.all(children.map((child) => child.exited())), [0, 0, 0, 0]);
    const printed = new Set(children.flatMap((child) => child.lines));
    assert.equal(printed.size, 1, [...printed].join(', '));
    assert.deepEqual(
      readdirSync(tmp).sort(),
      ['generate.mjs', path.basename([...printed][0] ?? '')].sort(),
      'no staging folder remains',
    );
  });

  it('wraps every input in exactly [CLS] and [SEP]', async () => {
    const { tokenizer } = await loadPretrained(model(MINILM), testModelCache());
    const tokens = tokenizer.tokenize('Hello world', { add_special_tokens: true });
    assert.deepEqual(tokens, ['[CLS]', 'hello', 'world', '[SEP]']);
  });

  it('maps [batch, sequence] ids to last_hidden_state [batch, sequence, 384]', async () => {
    const hidden = await hiddenStates([2, 10, 11, 12, 3], [1, 1, 1, 1, 1]);
    assert.deepEqual(hidden.dims, [1, 5, 384]);
    assert.ok(Array.from(hidden.data as Float32Array).every(Number.isFinite));
  });

  it('keeps masked padding out of the real tokens, and only because of the mask', async () => {
    const ids = [2, 10, 11, 12, 3];
    const alone = firstTokens(await hiddenStates(ids, [1, 1, 1, 1, 1]), ids.length);
    const padded = [...ids, 0, 0, 0];
    const masked = firstTokens(await hiddenStates(padded, [1, 1, 1, 1, 1, 0, 0, 0]), ids.length);
    assert.ok(
      maxDifference(alone, masked) < 1e-5,
      `masked padding moved the output by ${maxDifference(alone, masked)}`,
    );
    const unmasked = firstTokens(
      await hiddenStates(
        padded,
        padded.map(() => 1),
      ),
      ids.length,
    );
    assert.ok(maxDifference(alone, unmasked) > 1e-2, 'padding attended to changes the output');
  });

  it('embeds each text of a padded batch as it embeds the text alone', async () => {
    const embedder = await sharedEmbedder(MINILM);
    const texts = ['short', 'a somewhat longer text', 'the longest of the three inputs, padded to by the others'];
    const batch = await embedder.embedTexts(texts);
    for (const [i, text] of texts.entries()) {
      const [alone] = await embedder.embedTexts([text]);
      assert.ok(alone && batch[i]);
      assert.ok(maxDifference(Array.from(alone), Array.from(batch[i])) < 1e-5, text);
    }
  });
});
