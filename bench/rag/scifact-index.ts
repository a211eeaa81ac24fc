/**
 * Synthetic indexes of SciFact text for the latency benchmarks: chunks drawn
 * from the SciFact sentences, vectors near a few hundred random centres
 * (cos ≈ 0.8 to their centre), written through the real write path
 * (IndexStore.replaceFile), 10 chunks a file, vaults by `vaultOf`, 10 namespaces.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { ModelSpec } from '@notegate/rag';
import type { IndexStore, StoredChunk } from '@notegate/rag/internals';
import { sharedDir, syntheticFile, unitVector, vaultOf } from './support.js';

export const CHUNKS_PER_FILE = 10;
export const CENTRES = 500;

export interface Corpus {
  readonly sentences: readonly string[];
  readonly claims: readonly string[];
  /** Words from frequency rank 10 (very common) to rank 20,000 (rare): the short queries people type. */
  readonly words: readonly string[];
}

/** What a chunk's text is made of: ~900 characters of sentences, or a dozen words (a large index of small chunks). */
export type ChunkText = 'sentences' | 'words';

export function readCorpus(): Corpus {
  const dir = path.join(sharedDir(), 'eval', 'scifact');
  const lines = (file: string) => readFileSync(path.join(dir, file), 'utf8').trim().split('\n');
  const texts = lines('corpus.jsonl').map((line) => String(JSON.parse(line).text));
  const sentences = texts.flatMap((t) => t.split(/(?<=\.)\s+/)).filter((s) => s.length > 20);
  const claims = lines('queries.jsonl').map((line) => String(JSON.parse(line).text));
  const counts = new Map<string, number>();
  for (const word of texts
    .join(' ')
    .toLowerCase()
    .match(/\p{L}{3,}/gu) ?? [])
    counts.set(word, (counts.get(word) ?? 0) + 1);
  const ranked = [...counts].sort((a, b) => b[1] - a[1]).map(([w]) => w);
  const words = [10, 50, 200, 1000, 5000, 20000].flatMap((rank) => ranked.slice(rank, rank + 2));
  return { sentences, claims, words };
}

/** A unit vector near `centre`. */
export function near(centre: Float32Array, random: () => number): Float32Array {
  const noise = unitVector(random, centre.length);
  const v = centre.map((c, i) => c + 0.75 * (noise[i] ?? 0));
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

/** Random chunks of one synthetic file. */
export class ChunkSource {
  constructor(
    private readonly corpus: Corpus,
    private readonly random: () => number,
    private readonly centres: readonly Float32Array[],
    private readonly text: ChunkText,
  ) {}

  pick<T>(list: readonly T[]): T {
    return list[Math.floor(this.random() * list.length)] as T;
  }

  chunks(count: number, extra = ''): StoredChunk[] {
    return Array.from({ length: count }, (_, seq) => ({
      seq,
      heading: `Section ${seq}`,
      lineStart: seq * 10 + 1,
      lineEnd: seq * 10 + 9,
      text: `${this.textOfChunk()}${extra}`,
      tokenCount: 200,
      vector: near(this.pick(this.centres), this.random),
    }));
  }

  title(): string {
    return this.pick(this.corpus.sentences).slice(0, 60);
  }

  private textOfChunk(): string {
    if (this.text === 'words') {
      return Array.from({ length: 12 }, () => this.pick(this.pick(this.corpus.sentences).split(' '))).join(' ');
    }
    let text = '';
    while (text.length < 900) text += `${this.pick(this.corpus.sentences)} `;
    return text;
  }
}

/** Writes `size` chunks through `store`, files of CHUNKS_PER_FILE. */
export function writeIndex(store: IndexStore, size: number, source: ChunkSource): void {
  for (let f = 0; f * CHUNKS_PER_FILE < size; f += 1) {
    store.replaceFile(
      syntheticFile(vaultOf(f), `ns${f % 10}/note-${f}.md`, `ns${f % 10}`, source.title()),
      source.chunks(Math.min(CHUNKS_PER_FILE, size - f * CHUNKS_PER_FILE)),
      0,
    );
  }
}

/** The model of the synthetic indexes (its dimension; nothing is embedded). */
export function e5Small(findModel: (id: string) => ModelSpec | undefined): ModelSpec {
  const model = findModel('intfloat/multilingual-e5-small');
  if (!model) throw new Error('model table lacks e5-small');
  return model;
}
