/** A WebAssembly page (core spec §2.5.5). */
export const WASM_PAGE_BYTES = 65_536;

/**
 * The byte offsets of consecutive regions of a kernel's memory, from byte 0,
 * each 16-byte aligned (the kernels load v128 and i64 values), and the bytes
 * the memory needs: at least one page.
 */
export function kernelLayout<Name extends string>(
  regions: readonly (readonly [Name, number])[],
): Record<Name, number> & { readonly totalBytes: number } {
  const align = (n: number) => Math.ceil(n / 16) * 16;
  const at = {} as Record<Name, number>;
  let next = 0;
  for (const [name, bytes] of regions) {
    at[name] = next;
    next = align(next + bytes);
  }
  return { ...at, totalBytes: Math.max(WASM_PAGE_BYTES, next) };
}

/**
 * A zeroed shared memory of `totalBytes` for a kernel, fixed in size: a worker
 * thread fills it and hands it over without a copy (docs/retrieval.md#snapshots).
 */
export function kernelMemory(totalBytes: number): WebAssembly.Memory {
  const pages = Math.ceil(totalBytes / WASM_PAGE_BYTES);
  return new WebAssembly.Memory({ initial: pages, maximum: pages, shared: true });
}
