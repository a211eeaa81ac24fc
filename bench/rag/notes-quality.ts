/**
 * Finding notes as a person searches them: the query set in
 * `bench/rag/vault-til-queries/queries.json` (how it was made: its README) over
 * the shared notes vault (`eval/vault-til`, id `til`) and the small Obsidian-style
 * vault beside the queries (id `obsidian`: tags, notes that are only headings or
 * only frontmatter, link lists). Each query runs through the search request
 * check and the search every door runs, 50 hits deep; a note ranks at its best
 * chunk. Prints nDCG@10 and success@3 (a judged note among the first three
 * notes), overall and per kind of query, for the lexical leg on an index
 * without a model and, with `--model ID`, dense and hybrid on an index with
 * that model's vectors (its files read from `--model-cache DIR`, never downloaded), and the
 * median time of a query of each kind (query embedding included; timings belong here, not in tests).
 *
 * Run: npx tsc -b && node bench/rag/dist/notes-quality.js [--model ID --model-cache DIR] [--per-query]
 * (the notes vault: the shared folder, NOTEGATE_SHARED_DIR, else ../shared beside the repository)
 */
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  checkSearchRequest,
  dedupe,
  findModel,
  loadRagConfig,
  type ModelSpec,
  NO_MODEL,
  ndcgAt,
  noDownloads,
  openIndex,
  runIndex,
  SEARCH_FIELDS,
  type SearchMode,
  TOP_MAX,
} from '@notegate/rag';
import { arg, printTable, sharedDir, timings } from './support.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
/** The query set and its vault live in the sources, beside this file's own folder under dist. */
const QUERY_SET_DIR = path.resolve(HERE, '..', 'vault-til-queries');
const SUCCESS_DEPTH = 3;

interface JudgedQuery {
  readonly id: string;
  readonly query: string;
  readonly kinds: readonly string[];
  /** A tag filter (`tags` of the search request), where the search request has that field. */
  readonly tags: readonly string[] | undefined;
  /** `vault/path` → grade: 2 the note a person expects, 1 a note that also answers. */
  readonly relevant: ReadonlyMap<string, number>;
}

interface QueryOutcome {
  readonly query: JudgedQuery;
  readonly ndcg: number;
  readonly success: boolean;
  readonly notes: readonly string[];
  /** The search's median time over REPEATS runs, the first (cold caches) excluded. */
  readonly medianMs: number;
}

/** Runs per query for its time (the ranking is the same each time). */
const REPEATS = 11;

function loadQueries(file: string): JudgedQuery[] {
  const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
  if (!Array.isArray(parsed)) throw new Error(`${file}: expected a JSON array of queries`);
  return parsed.map((entry: unknown, i) => {
    const at = `${file}[${i}]`;
    if (typeof entry !== 'object' || entry === null) throw new Error(`${at}: expected an object`);
    const record: Record<string, unknown> = { ...entry };
    const { id, query, kinds, tags, relevant } = record;
    if (typeof id !== 'string' || typeof query !== 'string') throw new Error(`${at}: id and query must be strings`);
    if (!isStringList(kinds)) throw new Error(`${at}.kinds: expected a list of strings`);
    if (tags !== undefined && !isStringList(tags)) throw new Error(`${at}.tags: expected a list of strings`);
    if (typeof relevant !== 'object' || relevant === null) throw new Error(`${at}.relevant: expected an object`);
    const grades = new Map<string, number>();
    for (const [note, grade] of Object.entries(relevant)) {
      if (grade !== 1 && grade !== 2) throw new Error(`${at}.relevant.${note}: the grade is 1 or 2`);
      grades.set(note, grade);
    }
    return { id, query, kinds, tags, relevant: grades };
  });
}

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

/** A config of the two vaults, written as a person would, loaded by the real loader. */
function writeConfig(work: string, model: ModelSpec): string {
  const til = realpathSync(path.join(sharedDir(), 'eval', 'vault-til'));
  const obsidian = realpathSync(path.join(QUERY_SET_DIR, 'obsidian'));
  const file = path.join(work, 'vaults.json');
  const config = {
    embed_model: model.id,
    allowed_roots: [til, obsidian, work],
    index_path: path.join(work, 'index.sqlite'),
    vaults: [
      { id: 'til', path: til },
      { id: 'obsidian', path: obsidian },
    ],
  };
  writeFileSync(file, JSON.stringify(config, null, 2));
  return file;
}

async function measure(
  queries: readonly JudgedQuery[],
  model: ModelSpec,
  modelCacheDir: string,
  modes: readonly SearchMode[],
): Promise<{ readonly chunks: number; readonly outcomes: ReadonlyMap<SearchMode, QueryOutcome[]> }> {
  const work = mkdtempSync(path.join(tmpdir(), 'notegate-notes-quality-'));
  try {
    const config = loadRagConfig(writeConfig(work, model), homedir());
    const summary = await runIndex({
      config,
      modelCacheDir,
      download: noDownloads(new URL('http://127.0.0.1:9/')),
    });
    if (summary.failed.length > 0) throw new Error(`${summary.failed.length} notes failed to index`);
    const index = await openIndex({ indexPath: config.indexPath, model, modelCacheDir });
    const tagsField = (SEARCH_FIELDS as readonly string[]).includes('tags');
    const context = { vaults: config.vaults.map((vault) => vault.id), vectors: model.dimension > 0 };
    const outcomes = new Map<SearchMode, QueryOutcome[]>();
    try {
      for (const mode of modes) {
        const results: QueryOutcome[] = [];
        for (const query of queries) {
          const checked = checkSearchRequest(
            { query: query.query, top: TOP_MAX, mode, ...(tagsField && query.tags && { tags: query.tags }) },
            context,
          );
          if (!checked.ok) throw new Error(`${query.id}: ${checked.problem}`);
          const options = { ...checked.request, vaults: checked.request.vaults ?? context.vaults };
          const result = await index.search(options);
          const samplesMs: number[] = [];
          for (let run = 0; run < REPEATS; run += 1) {
            const startedMs = performance.now();
            await index.search(options);
            samplesMs.push(performance.now() - startedMs);
          }
          const notes = dedupe(result.hits.map((hit) => `${hit.vault}/${hit.path}`));
          results.push({
            query,
            ndcg: ndcgAt(10, notes, query.relevant),
            success: notes.slice(0, SUCCESS_DEPTH).some((note) => (query.relevant.get(note) ?? 0) > 0),
            notes,
            medianMs: timings(samplesMs).medianMs,
          });
        }
        outcomes.set(mode, results);
      }
    } finally {
      await index.close();
    }
    return { chunks: summary.chunksEmbedded, outcomes };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function percent(values: readonly number[]): string {
  return values.length === 0 ? '–' : ((100 * values.reduce((a, b) => a + b, 0)) / values.length).toFixed(1);
}

function summaryRows(label: string, outcomes: readonly QueryOutcome[]): string[][] {
  const kinds = [...new Set(outcomes.flatMap((o) => o.query.kinds))].sort();
  const row = (name: string, picked: readonly QueryOutcome[]) => [
    label,
    name,
    String(picked.length),
    percent(picked.map((o) => o.ndcg)),
    percent(picked.map((o) => (o.success ? 1 : 0))),
    timings(picked.map((o) => o.medianMs)).medianMs.toFixed(2),
  ];
  const set = (prefix: string) => outcomes.filter((o) => o.query.id.startsWith(prefix));
  return [
    row('all', outcomes),
    row('vault-til (til-*)', set('til-')),
    row('obsidian (obs-*)', set('obs-')),
    ...kinds.map((kind) =>
      row(
        kind,
        outcomes.filter((o) => o.query.kinds.includes(kind)),
      ),
    ),
  ];
}

async function main(): Promise<void> {
  const queries = loadQueries(path.join(QUERY_SET_DIR, 'queries.json'));
  const rows: string[][] = [];
  const perQuery: string[][] = [];
  const record = (label: string, outcomes: readonly QueryOutcome[]) => {
    rows.push(...summaryRows(label, outcomes));
    for (const o of outcomes) {
      perQuery.push([label, o.query.id, o.query.query, o.ndcg.toFixed(2), o.success ? 'yes' : 'no', o.notes[0] ?? '']);
    }
  };
  const lexical = await measure(queries, NO_MODEL, '', ['lexical']);
  record('lexical (embed_model none)', lexical.outcomes.get('lexical') ?? []);
  const modelId = arg('--model', 'none');
  if (modelId !== 'none') {
    const model = findModel(modelId);
    if (!model) throw new Error(`--model: unknown model ${modelId}`);
    const withVectors = await measure(queries, model, arg('--model-cache', ''), ['dense', 'hybrid']);
    for (const mode of ['dense', 'hybrid'] as const)
      record(`${mode} (${model.id})`, withVectors.outcomes.get(mode) ?? []);
  }
  const tagsField = (SEARCH_FIELDS as readonly string[]).includes('tags');
  console.log(
    `${queries.length} queries, 50 hits deep, a note at its best chunk (${lexical.chunks} chunks without a model)` +
      (tagsField ? '' : '; this version has no tags field: tag-filter queries ran without their filter'),
  );
  printTable(['search', 'queries', 'n', 'nDCG@10', 'success@3', 'ms (median)'], rows);
  if (process.argv.includes('--per-query')) {
    console.log('');
    printTable(['search', 'id', 'query', 'nDCG@10', 'success@3', 'first note'], perQuery);
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
