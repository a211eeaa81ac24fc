import type { VectorMatrix } from '../src/store/load-vectors.js';

/** A unit vector: `around` (default the origin) plus uniform noise of width `noise`, normalized. */
export function unit(random: () => number, dimension: number, around?: Float32Array, noise = 1): Float32Array {
  const v = new Float32Array(dimension);
  for (let j = 0; j < dimension; j += 1) v[j] = (around?.[j] ?? 0) + noise * (random() - 0.5);
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

/** Rows with chunk ids 1.., in the vault `vaultOf(i)` and namespace n0/n1, grouped as the loader groups them. */
export function matrixOf(
  vectors: readonly Float32Array[],
  vaultOf: (i: number) => string,
  dimension: number,
): VectorMatrix {
  const rows = vectors
    .map((v, i) => ({ v, id: i + 1, vault: vaultOf(i), namespace: `n${i % 2}` }))
    .sort((a, b) => a.vault.localeCompare(b.vault) || a.namespace.localeCompare(b.namespace) || a.id - b.id);
  const data = new Float32Array(rows.length * dimension);
  rows.forEach((r, i) => {
    data.set(r.v, i * dimension);
  });
  const partitions: { vault: string; namespace: string; start: number; end: number }[] = [];
  rows.forEach((r, i) => {
    const last = partitions[partitions.length - 1];
    if (last && last.vault === r.vault && last.namespace === r.namespace) last.end = i + 1;
    else partitions.push({ vault: r.vault, namespace: r.namespace, start: i, end: i + 1 });
  });
  return {
    dimension,
    count: rows.length,
    data,
    chunkIds: Float64Array.from(rows.map((r) => r.id)),
    partitions,
  };
}
