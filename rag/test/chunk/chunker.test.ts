import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chunkNote, chunkSteps } from '../../src/chunk/chunker.js';
import { chunkerSettingsFor } from '../../src/chunk/settings.js';
import type { ChunkerSettings } from '../../src/chunk/types.js';
import { E5_SMALL, MINILM, model, sharedEmbedder } from '../../test-support/fixtures.js';

/** One token per whitespace-separated word: deterministic sizes. */
const words = (text: string) => text.split(/\s+/).filter((w) => w !== '').length;
const settings: ChunkerSettings = { maxInputTokens: 40, targetTokens: 30, minTokens: 6, passagePrefix: 'passage: ' };
const sentence = (n: number, word = 'word') => Array.from({ length: n }, () => word).join(' ');

describe('chunkNote', () => {
  it('keeps frontmatter out of chunks and takes the title from it', () => {
    const note = chunkNote('---\ntitle: Keys\ntags: [a]\n---\n# Other\n\nbody text here', 'x/file.md', settings, words);
    assert.equal(note.title, 'Keys');
    assert.deepEqual(note.tags, ['a']);
    assert.equal(note.chunks.length, 1);
    assert.equal(note.chunks[0]?.text, 'body text here');
    assert.doesNotMatch(note.chunks[0]?.embedText ?? '', /title: Keys/);
  });

  it('takes the title from the first H1, else from the file name', () => {
    assert.equal(chunkNote('text\n# First\n# Second', 'a.md', settings, words).title, 'First');
    assert.equal(chunkNote('just text', 'dir/My Note.md', settings, words).title, 'My Note');
    assert.equal(chunkNote('just text', 'Plan.MARKDOWN', settings, words).title, 'Plan');
    assert.equal(chunkNote('just text', 'v1.2.Md', settings, words).title, 'v1.2');
  });

  it('gives each section its heading trail and 1-based line range, without repeating the title H1', () => {
    const text = [
      '# Guide',
      '',
      sentence(8),
      '',
      '## Setup',
      '',
      '### Keys',
      sentence(8),
      '',
      '## Use',
      sentence(8),
    ].join('\n');
    const note = chunkNote(text, 'g.md', settings, words);
    assert.deepEqual(
      note.chunks.map((c) => [c.heading, c.lineStart, c.lineEnd]),
      [
        ['', 3, 3],
        ['Setup > Keys', 8, 8],
        ['Use', 11, 11],
      ],
    );
    assert.equal(note.chunks[1]?.embedText, `passage: Guide > Setup > Keys\n${sentence(8)}`);
  });

  it('merges a section below minTokens into the next one, keeping the source lines verbatim', () => {
    const text = ['## A', 'tiny', '## B', sentence(8)].join('\n');
    const [chunk] = chunkNote(text, 'n.md', settings, words).chunks;
    assert.equal(chunk?.heading, 'A');
    assert.equal(chunk?.text, `tiny\n## B\n${sentence(8)}`);
    assert.deepEqual([chunk?.lineStart, chunk?.lineEnd], [2, 4]);
  });

  it('never splits a code fence that fits the window, even past the target size', () => {
    const fence = ['```', sentence(26, 'x'), '```'].join('\n');
    const small = { ...settings, targetTokens: 20 };
    const note = chunkNote([sentence(5), fence].join('\n\n'), 'f.md', small, words);
    const fenceChunk = note.chunks.find((c) => c.text === fence);
    assert.ok(fenceChunk, 'the fence is one chunk');
    assert.ok(fenceChunk.tokenCount > small.targetTokens && fenceChunk.tokenCount <= small.maxInputTokens);
    assert.deepEqual(note.warnings, []);
  });

  it('splits a fence longer than the window at line boundaries, and says so', () => {
    const fence = ['```', ...Array.from({ length: 12 }, () => sentence(5, 'y')), '```'].join('\n');
    const note = chunkNote(fence, 'big.md', settings, words);
    assert.ok(note.chunks.length >= 2);
    assert.ok(note.chunks.every((c) => c.tokenCount <= settings.maxInputTokens));
    assert.equal(note.chunks.map((c) => c.text).join('\n'), fence, 'nothing lost, lines kept whole');
    assert.match(
      note.warnings[0] ?? '',
      /^code fence at lines 1-14 \(\d+ tokens\) is longer than the model window; split at line boundaries$/,
    );
  });

  it('splits a single enormous line so no chunk exceeds the window', () => {
    const note = chunkNote(sentence(100), 'line.md', settings, words);
    assert.ok(note.chunks.length >= 3);
    assert.ok(note.chunks.every((c) => c.tokenCount <= settings.maxInputTokens && c.lineStart === 1));
  });

  it('cuts a long line without whitespace (an inline data URI) in steps into pieces that fit, nothing lost', () => {
    const perFourChars = (text: string) => Math.ceil(text.length / 4);
    const blob = `![x](data:image/png;base64,${'iVBORw0KGgo'.repeat(30_000)})`;
    const steps = chunkSteps(`# Image\n\n${blob}\n`, 'image.md', settings, perFourChars);
    let taken = 0;
    let step = steps.next();
    for (; !step.done; step = steps.next()) taken += 1;
    const note = step.value;
    assert.ok(note.chunks.every((c) => c.tokenCount <= settings.maxInputTokens && c.lineStart === 3));
    assert.equal(note.chunks.map((c) => c.text).join(''), blob);
    assert.ok(taken >= note.chunks.length, `${taken} steps for ${note.chunks.length} chunks`);
  });

  it('gives a note that is only frontmatter one empty chunk over the frontmatter, embedded as its title', () => {
    const note = chunkNote('---\ntitle: Ada\naliases: [Countess]\n---\n\n', 'e.md', settings, words);
    assert.deepEqual(note.chunks, [
      { seq: 0, heading: '', lineStart: 1, lineEnd: 4, text: '', embedText: 'passage: Ada\n', tokenCount: 2 },
    ]);
  });

  it('gives a blank note one empty chunk at line 1, found by the title its file name gives', () => {
    const note = chunkNote('\n\n', 'Call Bob.md', settings, words);
    assert.equal(note.title, 'Call Bob');
    assert.deepEqual(
      note.chunks.map((c) => [c.lineStart, c.lineEnd, c.text, c.embedText]),
      [[1, 1, '', 'passage: Call Bob\n']],
    );
  });

  it('takes the headings of a note that is only headings as its text, packed and split like any text', () => {
    const outline = '---\ntags: [plan]\n---\n# Garden\n\n## Raised beds\n\n### Soil mix\n\n## Tomatoes\n';
    const note = chunkNote(outline, 'garden.md', settings, words);
    assert.equal(note.title, 'Garden');
    assert.deepEqual(
      note.chunks.map((c) => [c.heading, c.lineStart, c.lineEnd, c.text]),
      [['', 4, 10, '# Garden\n\n## Raised beds\n\n### Soil mix\n\n## Tomatoes']],
    );
    const long = Array.from({ length: 30 }, (_, i) => `## Heading number ${i}`).join('\n');
    const split = chunkNote(long, 'long.md', settings, words);
    assert.ok(split.chunks.length > 1);
    assert.ok(split.chunks.every((c) => c.tokenCount <= settings.maxInputTokens && c.text.startsWith('## ')));
  });

  for (const id of [E5_SMALL, MINILM]) {
    it(`fits ${id}'s window as its tokenizer counts, prefix included`, async () => {
      const embedder = await sharedEmbedder(id);
      const spec = model(id);
      const real = chunkerSettingsFor(spec);
      const long = Array.from(
        { length: 60 },
        (_, i) => `Zeile ${i}: Schlüsselrotation 東京オフィス ${sentence(12, 'tokens')}`,
      );
      const text = ['# Notes', '## Keys', ...long, '```', ...long, '```'].join('\n');
      const note = chunkNote(text, 'n.md', real, (t) => embedder.countTokens(t));
      assert.ok(note.chunks.length > 4);
      for (const chunk of note.chunks) {
        assert.ok(chunk.embedText.startsWith(spec.passagePrefix));
        assert.equal(chunk.tokenCount, embedder.countTokens(chunk.embedText));
        assert.ok(chunk.tokenCount + 2 <= spec.windowTokens, `${chunk.tokenCount} tokens + 2 special`);
      }
    });
  }
});
