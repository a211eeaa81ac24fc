import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { type Finished, unwrapHelp } from '@notegate/kit/testing';
import { cliPath, runNode } from '../../test-support/child.js';
import { smallDataset } from '../../test-support/dataset.js';
import { MINILM, tempDir } from '../../test-support/fixtures.js';
import { testModelCache } from '../../test-support/test-model/test-model.js';

function cli(t: TestContext, args: readonly string[]): Promise<Finished> {
  const env = { PATH: process.env.PATH, HOME: '/nonexistent-home', NOTEGATE_MODEL_CACHE: testModelCache() };
  return runNode(t, cliPath(), ['eval', ...args], { env, cwd: tempDir(t) });
}

describe('notegate-rag eval', () => {
  it('lists every option with its default under --help, naming the lexical-only model', async (t) => {
    const { code, stdout } = await cli(t, ['--help']);
    assert.equal(code, 0);
    const help = unwrapHelp(stdout);
    for (const option of [
      '--dataset DIR',
      '--split SPLIT',
      '--modes LIST',
      '--model ID',
      '--config PATH',
      '--json',
      '--quiet',
      '--offline',
    ]) {
      assert.ok(help.includes(option), option);
    }
    assert.match(help, /--model ID +Embedding model: .*, or none \(no embeddings: a lexical-only index\)\./);
    assert.match(help, /SHA-256/);
  });

  it('measures a lexical-only index end to end: a table for people, JSON for scripts, progress on stderr', async (t) => {
    const dataset = smallDataset(t);
    const text = await cli(t, ['--dataset', dataset, '--model', 'none']);
    assert.equal(text.code, 0, text.stderr);
    assert.match(
      text.stdout,
      /^dataset .* \(test\): 5 documents in 5 chunks, 3 judged queries\nmodel: none \(lexical only, no embeddings\)\nindex built in [\d.]+ s\n/,
    );
    assert.match(text.stdout, /\| mode +\| nDCG@10 \| Recall@10 \| Recall@100 \| query p50 \| query p95 \|/);
    assert.match(text.stdout, /\| lexical \| 100\.0 +\| 100\.0 +\| 100\.0 +\| [\d.]+ ms/);
    assert.match(text.stderr, /5 documents, 3 judged queries\n[\s\S]*lexical: 3 queries in [\d.]+ s\n/);
    const json = await cli(t, ['--dataset', dataset, '--model', 'none', '--json', '--quiet']);
    assert.equal(json.code, 0, json.stderr);
    assert.equal(json.stderr, '', '--quiet');
    const report = JSON.parse(json.stdout) as Record<string, unknown> & { modes: Record<string, unknown>[] };
    assert.deepEqual([report.model, report.weights, report.queries, report.warnings], ['none', null, 3, []]);
    assert.deepEqual(Object.keys(report.modes[0] ?? {}), [
      'mode',
      'ndcg_at_10',
      'recall_at_10',
      'recall_at_100',
      'query_ms_p50',
      'query_ms_p95',
    ]);
  });

  it('says that dense and hybrid numbers mean nothing with weights that are not the official release', async (t) => {
    const { code, stdout, stderr } = await cli(t, [
      '--dataset',
      smallDataset(t),
      '--model',
      MINILM,
      '--modes',
      'lexical,hybrid',
      '--offline',
      '--json',
      '--quiet',
    ]);
    assert.equal(code, 0, stderr);
    const report = JSON.parse(stdout) as {
      weights: Record<string, unknown>;
      warnings: string[];
      modes: { mode: string }[];
    };
    assert.deepEqual(
      report.modes.map((m) => m.mode),
      ['lexical', 'hybrid'],
    );
    assert.equal(report.weights.verified, false);
    assert.match(String(report.weights.file), /onnx\/model_quantized\.onnx$/);
    assert.match(
      report.warnings[0] ?? '',
      /is not the official release \(sha256 afdb6f1a.*\): these weights are unverified, so the hybrid numbers mean nothing$/,
    );
  });

  it('refuses bad flags and malformed datasets with the file and line', async (t) => {
    const dataset = smallDataset(t);
    writeFileSync(path.join(dataset, 'queries.jsonl'), '{"_id": "q1", "text": "x"}\n{"_id": "q2"\n');
    const malformed = await cli(t, ['--dataset', dataset, '--model', 'none', '--quiet']);
    assert.equal(malformed.code, 1);
    assert.match(malformed.stderr, /^notegate-rag eval: .*queries\.jsonl:2: not valid JSON/);
    const refused: [string[], RegExp][] = [
      [['--model', 'none'], /--dataset is required/],
      [
        ['--dataset', dataset, '--model', 'none', '--modes', 'lexical,dense'],
        /--modes dense: needs vectors, and embed_model none has none; use lexical/,
      ],
      [['--dataset', dataset, '--model', 'none', '--modes', 'bm25'], /--modes/],
      [['--dataset', dataset, '--model', 'e5-tiny'], /--model: "e5-tiny" is not whitelisted \(allowed: .*or none/],
      [['--dataset', dataset, '--model', 'none', '--split', 'validation'], /--split/],
    ];
    for (const [args, message] of refused) {
      const { code, stderr } = await cli(t, args);
      assert.equal(code, 2, args.join(' '));
      assert.match(stderr, message);
    }
  });
});
