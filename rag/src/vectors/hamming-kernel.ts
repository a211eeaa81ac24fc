import { type Bytes, type FunctionDefinition, kernelOver, op, VALUE_TYPE } from './wasm-encoding.js';

/**
 * `hamming(query, codes, count, out, histogram)`: for `count` consecutive
 * codes starting at byte `codes`, writes the number of bits in which each
 * differs from the code at `query` to the u16 array at `out`, and counts each
 * distance in the u32 array at `histogram` (one entry per distance, 0 to the
 * code's bits). The code width is fixed per compiled kernel: the query's
 * 64-bit words stay in locals and the loop over a code's words is unrolled
 * (at 384 dimensions, six words a row). Each word is counted with
 * `i64.popcnt`, one instruction on current CPUs: measured faster here than
 * `i8x16.popcnt`, which engines build from byte shuffles, and at about the
 * speed memory delivers the codes.
 */
const P = { query: 0, codes: 1, count: 2, out: 3, histogram: 4 } as const;
const L = { row: 5, distance: 6, slot: 7, firstQueryWord: 8 } as const;

/** Code width the kernel handles: a multiple of its 8-byte word. */
export const HAMMING_BYTE_MULTIPLE = 8;
/** Ours: the widest code (4,096 dimensions), which keeps a histogram small. */
export const HAMMING_MAX_BYTES = 512;

function hammingOfWidth(bytes: number): FunctionDefinition {
  const words = bytes / HAMMING_BYTE_MULTIPLE;
  const queryWord = (word: number) => L.firstQueryWord + word;
  const loadQuery: Bytes[] = Array.from({ length: words }, (_, word) => [
    op.localGet(P.query),
    op.i64Load(word * 8),
    op.localSet(queryWord(word)),
  ]).flat();
  // distance = Σ popcnt(code word xor query word)
  const countWords: Bytes[] = [
    ...Array.from({ length: words }, (_, word) => [
      ...[op.localGet(P.codes), op.i64Load(word * 8), op.localGet(queryWord(word)), op.i64Xor, op.i64Popcnt],
      ...(word === 0 ? [] : [op.i64Add]),
    ]).flat(),
    op.i32WrapI64,
    op.localSet(L.distance),
  ];
  const store: Bytes[] = [
    ...[op.localGet(P.out), op.localGet(L.row), op.i32Const(1), op.i32Shl, op.i32Add, op.localGet(L.distance)],
    op.i32Store16,
    ...[op.localGet(P.histogram), op.localGet(L.distance), op.i32Const(2), op.i32Shl, op.i32Add, op.localTee(L.slot)],
    ...[op.localGet(L.slot), op.i32Load, op.i32Const(1), op.i32Add, op.i32Store(0)],
  ];
  return {
    exportName: 'hamming',
    params: [VALUE_TYPE.i32, VALUE_TYPE.i32, VALUE_TYPE.i32, VALUE_TYPE.i32, VALUE_TYPE.i32],
    locals: [
      [3, VALUE_TYPE.i32],
      [words, VALUE_TYPE.i64],
    ],
    body: [
      ...loadQuery,
      op.i32Const(0),
      op.localSet(L.row),
      op.block,
      op.loop,
      ...[op.localGet(L.row), op.localGet(P.count), op.i32GeU, op.brIf(1)],
      ...countWords,
      ...store,
      ...[op.localGet(P.codes), op.i32Const(bytes), op.i32Add, op.localSet(P.codes)],
      ...[op.localGet(L.row), op.i32Const(1), op.i32Add, op.localSet(L.row)],
      op.br(0),
      op.end,
      op.end,
    ],
  };
}

export type Hamming = (query: number, codes: number, count: number, out: number, histogram: number) => void;

const kernels = new Map<number, (memory: WebAssembly.Memory) => Hamming>();

/** The kernel for codes of `bytes` bytes over a memory (compiled once per width and process). */
export function instantiateHamming(memory: WebAssembly.Memory, bytes: number): Hamming {
  if (bytes % HAMMING_BYTE_MULTIPLE !== 0 || bytes === 0 || bytes > HAMMING_MAX_BYTES) {
    throw new RangeError(
      `a code is ${HAMMING_BYTE_MULTIPLE} to ${HAMMING_MAX_BYTES} bytes, in steps of ${HAMMING_BYTE_MULTIPLE}`,
    );
  }
  let over = kernels.get(bytes);
  if (over === undefined) {
    over = kernelOver(hammingOfWidth(bytes));
    kernels.set(bytes, over);
  }
  return over(memory);
}
