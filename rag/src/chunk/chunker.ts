import { runSteps, type Steps } from '@notegate/kit';
import { breadcrumbOf, embedTextOf, headingTrail, titleOf } from './breadcrumb.js';
import { parseFrontmatter } from './frontmatter.js';
import { type Block, blockSteps } from './markdown-blocks.js';
import { COUNT_AT_ONCE_CHARS, countSteps, splitOversize } from './split-oversize.js';
import type { Chunk, ChunkedNote, ChunkerSettings, CountTokens } from './types.js';

/** Room kept when splitting, because token counts of joined texts can differ by a token or two. */
const SPLIT_MARGIN_TOKENS = 8;

/** A run of lines that must stay together, or a piece of an oversized block. */
interface Unit {
  readonly start: number;
  readonly end: number;
  readonly tokens: number;
  /** Tokens of the heading lines just before this unit (inside the text when the unit does not open a chunk). */
  readonly leadTokens: number;
  readonly trail: string;
  readonly opensSection: boolean;
  readonly partialText?: string;
}

/**
 * Heading-aware chunking (docs/retrieval.md#chunking): sections are kept whole when
 * they fit, small sections merge with the next, code fences are never split
 * unless one alone exceeds the model window. A chunk's text is the verbatim
 * source lines of its range; frontmatter is never part of it. Every note has
 * at least one chunk: headings alone are text, and a note without text has
 * one empty chunk, so that its title, aliases and tags find it.
 */
export function chunkNote(
  content: string,
  filePath: string,
  settings: ChunkerSettings,
  count: CountTokens,
): ChunkedNote {
  return runSteps(chunkSteps(content, filePath, settings, count));
}

/**
 * `chunkNote` as steps, each a line, a word or a chunk's worth of work: an index run gives the
 * event loop a turn between them (docs/retrieval.md#index-runs).
 */
export function* chunkSteps(
  content: string,
  filePath: string,
  settings: ChunkerSettings,
  count: CountTokens,
): Steps<ChunkedNote> {
  const lines = content.split(/\r\n|\r|\n/);
  yield;
  const frontmatter = parseFrontmatter(lines);
  const blocks = yield* blockSteps(lines, frontmatter.lineCount);
  const title = titleOf(frontmatter.title, blocks, filePath);
  const warnings: string[] = [];
  const context = new ChunkContext(lines, title, settings, count);
  // docs/retrieval.md#chunking: a note of headings alone (an outline) is its headings' text.
  const hasText = blocks.some((block) => block.kind !== 'heading');
  const units = yield* toUnits(
    hasText ? blocks : blocks.map(({ start, end }) => ({ kind: 'text', start, end })),
    context,
    warnings,
  );
  const chunks: Chunk[] = [];
  let group: Unit[] = [];
  let groupTokens = 0;
  for (const unit of units) {
    if (group.length > 0 && breaksBefore(unit, group, groupTokens, context)) {
      chunks.push(...context.emit(group, chunks.length, warnings));
      group = [];
      yield;
    }
    groupTokens =
      group.length === 0 ? context.overhead(unit.trail) + unit.tokens : groupTokens + unit.leadTokens + unit.tokens;
    group.push(unit);
  }
  if (group.length > 0) chunks.push(...context.emit(group, chunks.length, warnings));
  // A note with no text at all (frontmatter alone, or empty) is still found by its title, aliases and tags.
  if (chunks.length === 0) chunks.push(context.textless(Math.max(1, frontmatter.lineCount)));
  return { title, aliases: frontmatter.aliases, tags: frontmatter.tags, chunks, warnings };
}

function breaksBefore(unit: Unit, group: readonly Unit[], groupTokens: number, context: ChunkContext): boolean {
  const first = group[0];
  if (unit.partialText !== undefined || first?.partialText !== undefined) return true;
  if (unit.opensSection && groupTokens >= context.settings.minTokens) return true;
  return groupTokens + unit.leadTokens + unit.tokens > context.settings.targetTokens;
}

function* toUnits(blocks: readonly Block[], context: ChunkContext, warnings: string[]): Steps<Unit[]> {
  const units: Unit[] = [];
  const stack: { level: number; text: string }[] = [];
  let leadTokens = 0;
  let opensSection = true;
  for (const block of blocks) {
    if (block.kind === 'heading') {
      while ((stack[stack.length - 1]?.level ?? 0) >= block.level) stack.pop();
      stack.push({ level: block.level, text: block.text });
      leadTokens += yield* countSteps(context.lines[block.start] ?? '', context.count);
      opensSection = true;
      continue;
    }
    const trail = headingTrail(stack, context.title);
    const budget = context.settings.maxInputTokens - context.overhead(trail) - SPLIT_MARGIN_TOKENS;
    const tokens = yield* blockTokens(block, context);
    if (tokens <= budget) {
      units.push({ start: block.start, end: block.end, tokens, leadTokens, trail, opensSection });
    } else {
      if (block.kind === 'fence') {
        warnings.push(
          `code fence at lines ${block.start + 1}-${block.end + 1} (${tokens} tokens) is longer than the model window; split at line boundaries`,
        );
      }
      const pieces = yield* splitOversize(context.lines, block.start, block.end, budget, context.count);
      pieces.forEach((piece, i) => {
        units.push({ ...piece, leadTokens: i === 0 ? leadTokens : 0, trail, opensSection: i === 0 && opensSection });
      });
    }
    leadTokens = 0;
    opensSection = false;
    yield;
  }
  return units;
}

/**
 * A block's tokens: counted at once when it is short; a large block line by line (counts add up
 * across whitespace), so no one count holds the event loop.
 */
function* blockTokens(block: Block, context: ChunkContext): Steps<number> {
  const text = context.slice(block.start, block.end);
  if (text.length <= COUNT_AT_ONCE_CHARS) return context.count(text);
  let tokens = 0;
  for (let i = block.start; i <= block.end; i += 1) tokens += yield* countSteps(context.lines[i] ?? '', context.count);
  return tokens;
}

/** What every step needs: the note's lines and title, the settings, and cached breadcrumb costs. */
class ChunkContext {
  private readonly overheads = new Map<string, number>();

  constructor(
    readonly lines: readonly string[],
    readonly title: string,
    readonly settings: ChunkerSettings,
    readonly count: CountTokens,
  ) {}

  slice(start: number, end: number): string {
    return this.lines.slice(start, end + 1).join('\n');
  }

  /** Tokens of the prefix and breadcrumb line that precede a chunk's text. */
  overhead(trail: string): number {
    let tokens = this.overheads.get(trail);
    if (tokens === undefined) {
      tokens = this.count(embedTextOf(this.settings.passagePrefix, breadcrumbOf(this.title, trail), ''));
      this.overheads.set(trail, tokens);
    }
    return tokens;
  }

  /** The one chunk of a note without text: lines 1 to `lineEnd` (its frontmatter), embedded as its title alone. */
  textless(lineEnd: number): Chunk {
    const embedText = embedTextOf(this.settings.passagePrefix, breadcrumbOf(this.title, ''), '');
    return { seq: 0, heading: '', lineStart: 1, lineEnd, text: '', embedText, tokenCount: this.count(embedText) };
  }

  /** Turns a group of units into a chunk, splitting the group again if the exact count overflows the window. */
  emit(group: readonly Unit[], seq: number, warnings: string[]): Chunk[] {
    const first = group[0];
    const last = group[group.length - 1];
    if (!first || !last) return [];
    const text = first.partialText ?? this.slice(first.start, last.end);
    const embedText = embedTextOf(this.settings.passagePrefix, breadcrumbOf(this.title, first.trail), text);
    const tokenCount = this.count(embedText);
    if (tokenCount > this.settings.maxInputTokens && group.length > 1) {
      const head = this.emit(group.slice(0, -1), seq, warnings);
      return [...head, ...this.emit([{ ...last, opensSection: true }], seq + head.length, warnings)];
    }
    if (tokenCount > this.settings.maxInputTokens) {
      warnings.push(
        `lines ${first.start + 1}-${last.end + 1} exceed the model window by ${tokenCount - this.settings.maxInputTokens} tokens; the model truncates them`,
      );
    }
    return [
      { seq, heading: first.trail, lineStart: first.start + 1, lineEnd: last.end + 1, text, embedText, tokenCount },
    ];
  }
}
