/**
 * The part of the WebAssembly JS API (a Node.js global) that the kernels use;
 * TypeScript declares it only in its DOM libraries, which this project does
 * not load.
 */
declare namespace WebAssembly {
  class Memory {
    constructor(descriptor: { initial: number; maximum?: number; shared?: boolean });
    /** A SharedArrayBuffer for a shared memory. */
    readonly buffer: ArrayBufferLike;
  }
  class Module {
    constructor(bytes: Uint8Array);
  }
  class Instance {
    constructor(module: Module, imports: Record<string, Record<string, unknown>>);
    readonly exports: Record<string, unknown>;
  }
}
