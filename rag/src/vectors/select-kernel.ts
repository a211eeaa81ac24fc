import { type FunctionDefinition, kernelOver, op, VALUE_TYPE } from './wasm-encoding.js';

/**
 * `select(distances, count, cut, selected, capacity)`: lists the rows, from
 * 0, of the first `count` u16 distances at `distances` that are at most `cut`,
 * in row order, as u32 at `selected + 8`, at most `capacity` of them; writes
 * at `selected` how many it listed (u32), then how many rows it went through
 * (u32). It goes through whole blocks of eight rows: `count` is a multiple of
 * eight, and it stops before a block when fewer than eight places are left
 * (a caller gives at least eight, and calls again from there). Eight
 * distances are compared at once (`i16x8.le_u`, then a bit a row), so a block
 * without a row near enough costs a load and a test: the dense leg's pass
 * over a million distances for its candidates (docs/retrieval.md#dense-leg).
 */
const P = { distances: 0, count: 1, cut: 2, selected: 3, capacity: 4 } as const;
const L = { row: 5, listed: 6, bits: 7, limit: 8 } as const;

/** Rows a block compared at once: eight u16 lanes of a v128. */
export const SELECT_BLOCK = 8;
/** Bytes before the rows listed: how many were listed, and how many rows were gone through. */
export const SELECT_HEADER_BYTES = 8;

const SELECT: FunctionDefinition = {
  exportName: 'select',
  params: [VALUE_TYPE.i32, VALUE_TYPE.i32, VALUE_TYPE.i32, VALUE_TYPE.i32, VALUE_TYPE.i32],
  locals: [
    [3, VALUE_TYPE.i32],
    [1, VALUE_TYPE.v128],
  ],
  body: [
    ...[op.localGet(P.cut), op.i16x8Splat, op.localSet(L.limit)],
    op.block,
    op.loop,
    // Stop at the end, or where a whole block might not fit.
    ...[op.localGet(L.row), op.localGet(P.count), op.i32GeU, op.brIf(1)],
    ...[op.localGet(P.capacity), op.localGet(L.listed), op.i32Sub, op.i32Const(SELECT_BLOCK), op.i32LtU, op.brIf(1)],
    // bits: one per row of the block whose distance is at most the cut.
    ...[op.localGet(P.distances), op.localGet(L.row), op.i32Const(1), op.i32Shl, op.i32Add, op.v128Load(0)],
    ...[op.localGet(L.limit), op.i16x8LeU, op.i16x8Bitmask, op.localSet(L.bits)],
    op.block,
    op.loop,
    ...[op.localGet(L.bits), op.i32Eqz, op.brIf(1)],
    // selected[8 + 4·listed] = row + the lowest bit set; then that bit cleared.
    ...[op.localGet(P.selected), op.localGet(L.listed), op.i32Const(2), op.i32Shl, op.i32Add],
    ...[op.localGet(L.row), op.localGet(L.bits), op.i32Ctz, op.i32Add, op.i32Store(SELECT_HEADER_BYTES)],
    ...[op.localGet(L.listed), op.i32Const(1), op.i32Add, op.localSet(L.listed)],
    ...[op.localGet(L.bits), op.localGet(L.bits), op.i32Const(1), op.i32Sub, op.i32And, op.localSet(L.bits)],
    op.br(0),
    op.end,
    op.end,
    ...[op.localGet(L.row), op.i32Const(SELECT_BLOCK), op.i32Add, op.localSet(L.row)],
    op.br(0),
    op.end,
    op.end,
    ...[op.localGet(P.selected), op.localGet(L.listed), op.i32Store(0)],
    ...[op.localGet(P.selected), op.localGet(L.row), op.i32Store(4)],
  ],
};

export type Select = (distances: number, count: number, cut: number, selected: number, capacity: number) => void;

/** The kernel over a memory (the module compiled once per process). */
export const instantiateSelect: (memory: WebAssembly.Memory) => Select = kernelOver(SELECT);
