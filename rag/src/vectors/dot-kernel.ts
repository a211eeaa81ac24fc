import { type Bytes, type FunctionDefinition, kernelOver, op, VALUE_TYPE } from './wasm-encoding.js';

/**
 * `dot_i8(query, rows, count, dim, out)`: for `count` consecutive int8 rows of
 * `dim` bytes starting at byte `rows`, writes the exact integer dot product
 * with the int16 query at `query` to the i32 array at `out`. `dim` must be a
 * multiple of 32 (one loop step reads 32 row bytes and 64 query bytes).
 * Products are widened with `i32x4.dot_i16x8_s`, so nothing saturates; the
 * caller keeps the sum inside i32 (see QUERY_SCALE_MAX in int8-scan.ts).
 */
const P = { query: 0, rows: 1, count: 2, dim: 3, out: 4 } as const;
const L = { row: 5, i: 6, rowAt: 7, queryAt: 8, accA: 9, accB: 10 } as const;

/** acc += dot(extend(row[at..at+16]), query[at..at+8]) for the low or high half of 16 row bytes. */
function accumulate(acc: number, rowOffset: number, queryOffset: number, half: 'low' | 'high'): Bytes[] {
  return [
    op.localGet(acc),
    op.localGet(L.rowAt),
    op.v128Load(rowOffset),
    half === 'low' ? op.i16x8ExtendLowI8x16S : op.i16x8ExtendHighI8x16S,
    op.localGet(L.queryAt),
    op.v128Load(queryOffset),
    op.i32x4DotI16x8S,
    op.i32x4Add,
    op.localSet(acc),
  ];
}

const innerLoop: Bytes[] = [
  op.i32Const(0),
  op.localSet(L.i),
  op.block,
  op.loop,
  ...[op.localGet(L.i), op.localGet(P.dim), op.i32GeU, op.brIf(1)],
  ...[op.localGet(P.rows), op.localGet(L.i), op.i32Add, op.localSet(L.rowAt)],
  ...[op.localGet(P.query), op.localGet(L.i), op.i32Const(1), op.i32Shl, op.i32Add, op.localSet(L.queryAt)],
  ...accumulate(L.accA, 0, 0, 'low'),
  ...accumulate(L.accB, 0, 16, 'high'),
  ...accumulate(L.accA, 16, 32, 'low'),
  ...accumulate(L.accB, 16, 48, 'high'),
  ...[op.localGet(L.i), op.i32Const(32), op.i32Add, op.localSet(L.i)],
  op.br(0),
  op.end,
  op.end,
];

const storeRowSum: Bytes[] = [
  ...[op.localGet(L.accA), op.localGet(L.accB), op.i32x4Add, op.localSet(L.accA)],
  ...[op.localGet(P.out), op.localGet(L.row), op.i32Const(2), op.i32Shl, op.i32Add],
  ...[op.localGet(L.accA), op.i32x4ExtractLane(0), op.localGet(L.accA), op.i32x4ExtractLane(1), op.i32Add],
  ...[op.localGet(L.accA), op.i32x4ExtractLane(2), op.localGet(L.accA), op.i32x4ExtractLane(3), op.i32Add],
  op.i32Add,
  op.i32Store(0),
];

const DOT_I8: FunctionDefinition = {
  exportName: 'dot_i8',
  params: [VALUE_TYPE.i32, VALUE_TYPE.i32, VALUE_TYPE.i32, VALUE_TYPE.i32, VALUE_TYPE.i32],
  locals: [
    [4, VALUE_TYPE.i32],
    [2, VALUE_TYPE.v128],
  ],
  body: [
    op.i32Const(0),
    op.localSet(L.row),
    op.block,
    op.loop,
    ...[op.localGet(L.row), op.localGet(P.count), op.i32GeU, op.brIf(1)],
    ...[op.v128Zero, op.localSet(L.accA), op.v128Zero, op.localSet(L.accB)],
    ...innerLoop,
    ...storeRowSum,
    ...[op.localGet(P.rows), op.localGet(P.dim), op.i32Add, op.localSet(P.rows)],
    ...[op.localGet(L.row), op.i32Const(1), op.i32Add, op.localSet(L.row)],
    op.br(0),
    op.end,
    op.end,
  ],
};

/** Row width the kernel handles: a multiple of its 32-byte step. */
export const KERNEL_DIM_MULTIPLE = 32;

export type DotI8 = (query: number, rows: number, count: number, dim: number, out: number) => void;

export const instantiateDotI8: (memory: WebAssembly.Memory) => DotI8 = kernelOver(DOT_I8);
