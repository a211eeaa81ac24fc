/**
 * Just enough of the WebAssembly binary format (core spec §5, SIMD proposal
 * opcodes) to write small numeric kernels by hand, readably, without a
 * toolchain. Each helper returns the bytes of one instruction or section.
 */

export type Bytes = readonly number[];

export const VALUE_TYPE = { i32: 0x7f, i64: 0x7e, f32: 0x7d, v128: 0x7b } as const;

/** Unsigned LEB128 (§5.2.2). */
function uleb(value: number): number[] {
  const out: number[] = [];
  let rest = value >>> 0;
  do {
    let byte = rest & 0x7f;
    rest >>>= 7;
    if (rest !== 0) byte |= 0x80;
    out.push(byte);
  } while (rest !== 0);
  return out;
}

/** Signed LEB128 for i32 constants (§5.2.2). */
function sleb(value: number): number[] {
  const out: number[] = [];
  let rest = value | 0;
  for (;;) {
    const byte = rest & 0x7f;
    rest >>= 7;
    const done = (rest === 0 && (byte & 0x40) === 0) || (rest === -1 && (byte & 0x40) !== 0);
    out.push(done ? byte : byte | 0x80);
    if (done) return out;
  }
}

const vector = (items: readonly Bytes[]): number[] => [...uleb(items.length), ...items.flat()];
const name = (text: string): number[] => vector([...Buffer.from(text, 'utf8')].map((byte) => [byte]));
const section = (id: number, content: Bytes): number[] => [id, ...uleb(content.length), ...content];

/** Instructions (§5.4), named as in the text format. */
export const op = {
  block: [0x02, 0x40],
  loop: [0x03, 0x40],
  end: [0x0b],
  br: (depth: number) => [0x0c, ...uleb(depth)],
  brIf: (depth: number) => [0x0d, ...uleb(depth)],
  localGet: (index: number) => [0x20, ...uleb(index)],
  localSet: (index: number) => [0x21, ...uleb(index)],
  localTee: (index: number) => [0x22, ...uleb(index)],
  i32Const: (value: number) => [0x41, ...sleb(value)],
  i32Eqz: [0x45],
  i32LtU: [0x49],
  i32GeU: [0x4f],
  i32Ctz: [0x68],
  i32Add: [0x6a],
  i32Sub: [0x6b],
  i32And: [0x71],
  i32Shl: [0x74],
  f32Add: [0x92],
  /** memarg: alignment as a power of two, then the offset. */
  i32Load: [0x28, 2, 0],
  i32Store: (offset: number) => [0x36, 2, ...uleb(offset)],
  i32Store16: [0x3b, 1, 0],
  i64Load: (offset: number) => [0x29, 3, ...uleb(offset)],
  i64Xor: [0x85],
  i64Popcnt: [0x7b],
  i64Add: [0x7c],
  i32WrapI64: [0xa7],
  f32Store: [0x38, 2, 0],
  // SIMD (prefix 0xfd, then the opcode as LEB128).
  v128Load: (offset: number) => [0xfd, ...uleb(0x00), 4, ...uleb(offset)],
  v128Zero: [0xfd, ...uleb(0x0c), ...new Array<number>(16).fill(0)],
  i16x8Splat: [0xfd, ...uleb(0x10)],
  i16x8LeU: [0xfd, ...uleb(0x34)],
  i16x8Bitmask: [0xfd, ...uleb(0x84)],
  i32x4ExtractLane: (lane: number) => [0xfd, ...uleb(0x1b), lane],
  f32x4ExtractLane: (lane: number) => [0xfd, ...uleb(0x1f), lane],
  i16x8ExtendLowI8x16S: [0xfd, ...uleb(0x87)],
  i16x8ExtendHighI8x16S: [0xfd, ...uleb(0x88)],
  i32x4Add: [0xfd, ...uleb(0xae)],
  i32x4DotI16x8S: [0xfd, ...uleb(0xba)],
  f32x4Add: [0xfd, ...uleb(0xe4)],
  f32x4Mul: [0xfd, ...uleb(0xe6)],
} as const;

export interface FunctionDefinition {
  readonly exportName: string;
  readonly params: readonly number[];
  /** Extra locals as [count, type] runs; they are numbered after the parameters. */
  readonly locals: readonly (readonly [number, number])[];
  readonly body: readonly Bytes[];
}

/** The most pages a 32-bit memory has (4 GiB, threads proposal: a shared memory needs a maximum). */
const MAX_MEMORY_PAGES = 65_536;

/**
 * A module that imports its memory as `env.memory` (so the host sizes and
 * fills it) and exports the given functions, none of which returns a value.
 * The memory is a shared one (limits flag 3: shared, with a maximum), so that
 * a worker thread can fill it and hand it over without a copy.
 */
export function encodeModule(functions: readonly FunctionDefinition[]): Uint8Array {
  const types = functions.map((fn) => [0x60, ...vector(fn.params.map((type) => [type])), ...vector([])]);
  const memoryImport = [...name('env'), ...name('memory'), 0x02, 0x03, ...uleb(1), ...uleb(MAX_MEMORY_PAGES)];
  const exports = functions.map((fn, index) => [...name(fn.exportName), 0x00, ...uleb(index)]);
  const bodies = functions.map((fn) => {
    const code = [...vector(fn.locals.map(([count, type]) => [...uleb(count), type])), ...fn.body.flat(), ...op.end];
    return [...uleb(code.length), ...code];
  });
  return new Uint8Array([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, vector(types)),
    ...section(2, vector([memoryImport])),
    ...section(3, vector(functions.map((_, index) => uleb(index)))),
    ...section(7, vector(exports)),
    ...section(10, vector(bodies)),
  ]);
}

/**
 * The instantiation of a one-function kernel over a memory: the module is
 * compiled once per process, at the first call; throws where WebAssembly or its
 * SIMD is unavailable (e.g. `node --jitless`).
 */
export function kernelOver(
  definition: FunctionDefinition,
): (memory: WebAssembly.Memory) => (...args: number[]) => void {
  let compiled: WebAssembly.Module | undefined;
  return (memory) => {
    compiled ??= new WebAssembly.Module(encodeModule([definition]));
    const fn = new WebAssembly.Instance(compiled, { env: { memory } }).exports[definition.exportName];
    if (typeof fn !== 'function') throw new Error(`the ${definition.exportName} kernel did not export a function`);
    return (...args) => {
      fn(...args);
    };
  };
}
