import { createHash } from 'node:crypto';
import { FLOAT, INT8, INT64, OnnxGraphBuilder } from './onnx-builder.js';

export interface TinyBertShape {
  readonly vocabularySize: number;
  /** The width of every vector; the index checks it against the model's dimension. */
  readonly hiddenSize: number;
  readonly maxPositions: number;
  /** Weights are a pure function of the seed. */
  readonly seed: string;
}

/** Added to the attention score of a padding key: its softmax weight underflows to exactly 0. */
const MASKED_SCORE = -1e9;
const LAYER_NORM_EPSILON = 1e-12;

/**
 * A one-layer BERT encoder as an ONNX model, with the inputs and output of a
 * transformers.js feature-extraction export: `input_ids`, `attention_mask`,
 * `token_type_ids` (int64 [batch, sequence]) → `last_hidden_state` (float
 * [batch, sequence, hidden]). Token, position and type embeddings are summed
 * and layer-normalized, then one single-head self-attention block (with a
 * residual connection and a second layer norm) mixes the tokens; padding keys
 * get no attention, so a padded row yields the same vectors as the input alone.
 * Weights are random int8 from the seed, dequantized in the graph as in a q8
 * export, which keeps the file at about 1.4 MB.
 */
export function tinyBertOnnx(shape: TinyBertShape): Uint8Array {
  const { vocabularySize, hiddenSize: h, maxPositions, seed } = shape;
  const g = new OnnxGraphBuilder();
  // Uniform int8 values times 1/128 span [-1, 1]; the projections are scaled down to keep scores moderate.
  const table = (name: string, rows: number) => weights(g, seed, name, [rows, h], 1 / 128);
  const projection = (name: string) => weights(g, seed, name, [h, h], Math.sqrt(3 / h) / 128);
  const ones = g.floats('ones', [h], new Array<number>(h).fill(1));
  const zeros = g.floats('zeros', [h], new Array<number>(h).fill(0));
  const layerNorm = (x: string) =>
    g.op('LayerNormalization', [x, ones, zeros], { axis: { int: -1 }, epsilon: { float: LAYER_NORM_EPSILON } });

  const tokens = g.op('Gather', [table('word_embeddings', vocabularySize), 'input_ids']);
  const types = g.op('Gather', [table('token_type_embeddings', 2), 'token_type_ids']);
  const one = g.int64s('one', [], [1]);
  const sequenceLength = g.op('Gather', [g.op('Shape', ['input_ids']), one]);
  const positionIds = g.op('Range', [g.int64s('zero', [], [0]), sequenceLength, one]);
  const positions = g.op('Gather', [table('position_embeddings', maxPositions), positionIds]);
  const embedded = layerNorm(g.op('Add', [g.op('Add', [tokens, types]), positions]));

  const query = g.op('MatMul', [embedded, projection('query')]);
  const key = g.op('MatMul', [embedded, projection('key')]);
  const value = g.op('MatMul', [embedded, projection('value')]);
  const scores = g.op('Mul', [
    g.op('MatMul', [query, g.op('Transpose', [key], { perm: { ints: [0, 2, 1] } })]),
    g.floats('score_scale', [], [1 / Math.sqrt(h)]),
  ]);
  // (1 - mask) * MASKED_SCORE, as [batch, 1, keys]: broadcast over every query row.
  const padding = g.op('Sub', [
    g.floats('one_float', [], [1]),
    g.op('Cast', ['attention_mask'], { to: { int: FLOAT } }),
  ]);
  const keyBias = g.op('Unsqueeze', [
    g.op('Mul', [padding, g.floats('masked_score', [], [MASKED_SCORE])]),
    g.int64s('key_axis', [1], [1]),
  ]);
  const attention = g.op('Softmax', [g.op('Add', [scores, keyBias])], { axis: { int: -1 } });
  const mixed = g.op('MatMul', [g.op('MatMul', [attention, value]), projection('output')]);
  layerNorm(g.op('Add', [embedded, mixed]));
  g.nameLast('last_hidden_state');

  const ids = { elementType: INT64, dims: ['batch_size', 'sequence_length'] };
  return g.encode({
    name: 'tiny-bert',
    // 17: the first opset with LayerNormalization.
    opset: 17,
    inputs: { input_ids: ids, attention_mask: ids, token_type_ids: ids },
    outputs: { last_hidden_state: { elementType: FLOAT, dims: ['batch_size', 'sequence_length', h] } },
  });
}

/** Seeded int8 weights of `dims`, dequantized in the graph (scale times value); returns the float tensor's name. */
function weights(g: OnnxGraphBuilder, seed: string, name: string, dims: readonly number[], scale: number): string {
  const count = dims.reduce((a, b) => a * b, 1);
  // SHAKE-256 as a deterministic stream of random bytes: the same seed and name give the same weights.
  const bytes = createHash('shake256', { outputLength: count }).update(`${seed}/${name}`).digest();
  const quantized = g.constant(`${name}_int8`, INT8, dims, bytes);
  return g.op('DequantizeLinear', [quantized, g.floats(`${name}_scale`, [], [scale])]);
}
