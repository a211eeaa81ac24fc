/** A model's hidden states: `[rows, tokens, dimension]`, row-major. */
export interface HiddenStates {
  readonly data: Float32Array;
  readonly rows: number;
  readonly tokens: number;
  readonly dimension: number;
}

/**
 * One vector per row (docs/retrieval.md#embedding): the mean of the hidden states of the tokens the
 * attention mask keeps, scaled to unit length. The very numbers of transformers.js's `mean_pooling`
 * followed by `normalize(2, -1)` (a sum per dimension in double precision, the mean and the length
 * rounded to single precision as its float32 tensors hold them), in one pass over the states instead
 * of a strided pass per dimension and an index computation per element: a hundredth of the time.
 */
export function meanPooledRows(hidden: HiddenStates, mask: ArrayLike<bigint>): Float32Array[] {
  const { data, rows, tokens, dimension } = hidden;
  const vectors: Float32Array[] = [];
  const sums = new Float64Array(dimension);
  for (let row = 0; row < rows; row += 1) {
    sums.fill(0);
    let kept = 0;
    for (let token = 0; token < tokens; token += 1) {
      const weight = Number(mask[row * tokens + token] ?? 0n);
      if (weight === 0) continue;
      kept += weight;
      const offset = (row * tokens + token) * dimension;
      for (let i = 0; i < dimension; i += 1) sums[i] = (sums[i] ?? 0) + (data[offset + i] ?? 0) * weight;
    }
    const vector = new Float32Array(dimension);
    let squares = 0;
    for (let i = 0; i < dimension; i += 1) {
      const mean = Math.fround((sums[i] ?? 0) / kept);
      vector[i] = mean;
      squares = Math.fround(squares + mean ** 2);
    }
    const length = Math.fround(squares ** 0.5);
    for (let i = 0; i < dimension; i += 1) vector[i] = (vector[i] ?? 0) / length;
    vectors.push(vector);
  }
  return vectors;
}
