/**
 * What `notegate-rag serve` pays to follow the index: the time from the
 * change check to the new snapshot being served (SnapshotSource.check, then
 * settled), after
 * - a no-op `index` run's commit (finishRun: fingerprint and last_indexed_at,
 *   no vector changed), and
 * - a run that replaced one file (10 chunks, new vectors),
 * over synthetic indexes (384-d unit vectors, 10 chunks a file, the real write path).
 * Wall and CPU time of the refresh, median / max over the rounds.
 *
 * Run: npx tsc -b && node bench/rag/dist/snapshot-refresh.js [--sizes 20000,100000] [--rounds 5]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { seededRandom } from '@notegate/kit/testing';
import { findModel, type ModelSpec, SnapshotSource } from '@notegate/rag';
import { IndexStore } from '@notegate/rag/internals';
import {
  arg,
  namespaceOf,
  printTable,
  syntheticChunks,
  syntheticFile,
  timings,
  unitVector,
  vaultOf,
  writeSyntheticIndex,
} from './support.js';

interface Refresh {
  readonly wallMs: number;
  readonly cpuMs: number;
  /** How the new snapshot's in-memory index came to be: the same, the previous plus the changes, or loaded whole. */
  readonly load: string;
}

async function main(): Promise<void> {
  const model = findModel('intfloat/multilingual-e5-small');
  if (!model) throw new Error('model table lacks e5-small');
  const sizes = arg('--sizes', '20000,100000').split(',').map(Number);
  const rounds = Number(arg('--rounds', '5'));
  const rows: string[][] = [];
  for (const size of sizes) {
    const dir = mkdtempSync(path.join(tmpdir(), 'notegate-refresh-bench-'));
    try {
      const file = path.join(dir, 'index.sqlite');
      const random = seededRandom(size);
      const vectors = Array.from({ length: size }, () => unitVector(random, model.dimension));
      writeSyntheticIndex(file, model, vectors);
      finishRun(file, model);
      const source = new SnapshotSource({ indexPath: file, model, reloadSpacing: () => 0 });
      await source.start();
      const initial = current(source);
      console.log(`${size} chunks: first load ${initial.loadDurationMs} ms, backend ${initial.vectorBackend}`);
      const noop: Refresh[] = [];
      const changed: Refresh[] = [];
      for (let round = 0; round < rounds; round += 1) {
        finishRun(file, model);
        noop.push(await refresh(source));
        const store = IndexStore.open(file, { model, nowMs: Date.now() });
        const vector = () => unitVector(random, model.dimension);
        store.replaceFile(
          syntheticFile(vaultOf(0), `${namespaceOf(0)}/note-0.md`, namespaceOf(0), `Note 0, round ${round}`),
          syntheticChunks(0, Array.from({ length: 10 }, vector)),
          0,
        );
        store.finishRun('', '{}', Date.now());
        store.close();
        changed.push(await refresh(source));
      }
      await source.close();
      rows.push(row(size, 'no-op index run (metadata only)', noop));
      rows.push(row(size, 'one file re-embedded', changed));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  console.log(`\nSnapshot refresh after an index run, ${rounds} rounds each (median / max):`);
  printTable(['chunks', 'index run', 'wall', 'CPU', 'loaded as'], rows);
}

/** What a no-op `index` run commits at its end. */
function finishRun(file: string, model: ModelSpec): void {
  const store = IndexStore.open(file, { model, nowMs: Date.now() });
  store.finishRun('', '{}', Date.now());
  store.close();
}

function current(source: SnapshotSource) {
  const state = source.current;
  if (state.kind !== 'ready') throw new Error(`snapshot ${state.kind}: ${'reason' in state ? state.reason : ''}`);
  return state.snapshot;
}

async function refresh(source: SnapshotSource): Promise<Refresh> {
  const before = current(source);
  const cpu = process.cpuUsage();
  const started = performance.now();
  source.check();
  await source.settled();
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  const after = current(source);
  if (after === before) throw new Error('the change was not picked up');
  return { wallMs, cpuMs: (used.user + used.system) / 1000, load: after.load.kind };
}

function row(size: number, label: string, refreshes: readonly Refresh[]): string[] {
  const wall = timings(refreshes.map((r) => r.wallMs));
  const cpu = timings(refreshes.map((r) => r.cpuMs));
  const max = (values: number[]) => Math.max(...values).toFixed(1);
  const loads = [...new Set(refreshes.map((r) => r.load))].join(', ');
  return [
    String(size),
    label,
    `${wall.medianMs.toFixed(1)} / ${max(refreshes.map((r) => r.wallMs))} ms`,
    `${cpu.medianMs.toFixed(1)} / ${max(refreshes.map((r) => r.cpuMs))} ms`,
    loads,
  ];
}

await main();
