/** Splits markdown lines into the units a chunk is built from. Pure. */
import type { Steps } from '@notegate/kit';

export type Block =
  | {
      readonly kind: 'heading';
      readonly level: number;
      readonly text: string;
      readonly start: number;
      readonly end: number;
    }
  | { readonly kind: 'fence'; readonly start: number; readonly end: number }
  | { readonly kind: 'text'; readonly start: number; readonly end: number };

const ATX_HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})/;

/**
 * Blocks over `lines[from..]`; `start`/`end` are 0-based line indexes
 * (inclusive). Text blocks are runs of non-blank lines; a fence runs to its
 * closing marker (CommonMark: same character, at least as long) or to the end.
 * A step per line.
 */
export function* blockSteps(lines: readonly string[], from: number): Steps<Block[]> {
  const blocks: Block[] = [];
  let i = from;
  while (i < lines.length) {
    const line = lines[i] ?? '';
    const fence = FENCE_OPEN.exec(line);
    const heading = ATX_HEADING.exec(line);
    if (fence?.[1]) {
      const end = yield* fenceEnd(lines, i, fence[1]);
      blocks.push({ kind: 'fence', start: i, end });
      i = end + 1;
    } else if (heading?.[1]) {
      blocks.push({ kind: 'heading', level: heading[1].length, text: (heading[2] ?? '').trim(), start: i, end: i });
      i += 1;
    } else if (line.trim() === '') {
      i += 1;
    } else {
      const start = i;
      while (i + 1 < lines.length && continuesText(lines[i + 1] ?? '')) {
        i += 1;
        yield;
      }
      blocks.push({ kind: 'text', start, end: i });
      i += 1;
    }
    yield;
  }
  return blocks;
}

function continuesText(line: string): boolean {
  return line.trim() !== '' && !FENCE_OPEN.test(line) && !ATX_HEADING.test(line);
}

function* fenceEnd(lines: readonly string[], open: number, marker: string): Steps<number> {
  const char = marker[0] === '`' ? '`' : '~';
  const close = new RegExp(`^ {0,3}\\${char}{${marker.length},}[ \\t]*$`);
  for (let i = open + 1; i < lines.length; i += 1) {
    if (close.test(lines[i] ?? '')) return i;
    yield;
  }
  return lines.length - 1;
}
