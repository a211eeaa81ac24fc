/**
 * Typed arrays for the in-memory index's large arrays, in shared memory that
 * the engine maps page by page, not in memory from the C allocator
 * (docs/retrieval.md#memory-of-segments).
 *
 * Why: segments are made and dropped all the time, by worker threads, in
 * sizes from kilobytes to hundreds of megabytes. A `SharedArrayBuffer` or an
 * `ArrayBuffer` comes from glibc's malloc, whose threshold for mapping a
 * block on its own rises to the size of the largest such block freed (up to
 * 32 MiB); after one merge, every array below that lands in a thread's malloc
 * arena, and an arena gives memory back to the system only from its top, so
 * the process kept memory that no segment held. A shared
 * `WebAssembly.Memory` is mapped by the engine and unmapped when it is
 * collected. Arrays below one page come from the allocator like any small
 * object (a mapping each would cost more than it saves).
 */

const PAGE_BYTES = 65_536;
/** A WebAssembly memory holds at most 65,536 pages (4 GiB). */
const MAX_PAGES = 65_536;

/** A shared buffer of at least `bytes` bytes, all zero: mapped pages from a byte count of one page up. */
export function pageBuffer(bytes: number): ArrayBufferLike {
  const pages = Math.ceil(bytes / PAGE_BYTES);
  if (bytes < PAGE_BYTES || pages > MAX_PAGES || typeof WebAssembly === 'undefined') {
    return new SharedArrayBuffer(bytes);
  }
  try {
    return new WebAssembly.Memory({ initial: pages, maximum: pages, shared: true }).buffer;
  } catch {
    // No address space left for another memory (or WebAssembly disabled): the allocator's buffer serves as well.
    return new SharedArrayBuffer(bytes);
  }
}

export const pageUint8 = (length: number) => new Uint8Array(pageBuffer(length), 0, length);
export const pageUint16 = (length: number) => new Uint16Array(pageBuffer(length * 2), 0, length);
export const pageInt32 = (length: number) => new Int32Array(pageBuffer(length * 4), 0, length);
export const pageUint32 = (length: number) => new Uint32Array(pageBuffer(length * 4), 0, length);
export const pageFloat32 = (length: number) => new Float32Array(pageBuffer(length * 4), 0, length);
export const pageFloat64 = (length: number) => new Float64Array(pageBuffer(length * 8), 0, length);

/** A copy of the array in page memory (where `slice()` would allocate from malloc). */
export function pageCopy(array: Uint8Array): Uint8Array {
  const copy = pageUint8(array.length);
  copy.set(array);
  return copy;
}
