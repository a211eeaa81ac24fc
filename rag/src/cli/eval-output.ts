import { NO_MODEL } from '../config/models.js';
import type { EvalReport } from '../eval/run-eval.js';

/** The warnings a report carries: weights that are not the official release make dense numbers meaningless. */
function reportWarnings(report: EvalReport): string[] {
  const { weights } = report;
  if (!weights || weights.verified) return [];
  const vectorModes = report.modes.filter((m) => m.mode !== 'lexical').map((m) => m.mode);
  const why =
    weights.sha256 === ''
      ? `the weights file ${weights.file} is missing`
      : weights.officialSha256 === undefined
        ? `no official SHA-256 is known for ${weights.file}`
        : `${weights.file} (sha256 ${weights.sha256}) is not the official release (sha256 ${weights.officialSha256})`;
  return [
    `${why}: these weights are unverified, so ${vectorModes.length > 0 ? `the ${vectorModes.join(', ')} numbers mean nothing` : 'dense and hybrid numbers would mean nothing'}`,
  ];
}

/** The report for people: what was measured, a table of the metrics (×100) and timings, then the warnings. */
export function formatReport(report: EvalReport): string {
  const { weights } = report;
  const model =
    report.modelId === NO_MODEL.id
      ? 'model: none (lexical only, no embeddings)'
      : `model: ${report.modelId}, weights ${weights?.file} sha256 ${weights?.sha256 || '(missing)'} ${weights?.verified ? '(the official release)' : '(NOT verified)'}`;
  const rows = report.modes.map((m) => [
    m.mode,
    percent(m.ndcgAt10),
    percent(m.recallAt10),
    percent(m.recallAt100),
    `${m.queryMsP50.toFixed(1)} ms`,
    `${m.queryMsP95.toFixed(1)} ms`,
  ]);
  const lines = [
    `dataset ${report.datasetDir} (${report.split}): ${report.documents} documents in ${report.chunks} chunks, ${report.queries} judged queries`,
    model,
    `index built in ${(report.indexMs / 1000).toFixed(1)} s`,
    '',
    ...table(['mode', 'nDCG@10', 'Recall@10', 'Recall@100', 'query p50', 'query p95'], rows),
    ...reportWarnings(report).map((warning) => `\nwarning: ${warning}`),
  ];
  return `${lines.join('\n')}\n`;
}

/** The report for scripts (`--json`), with snake_case names and metrics as fractions. */
export function reportJson(report: EvalReport) {
  const { weights } = report;
  return {
    dataset: report.datasetDir,
    split: report.split,
    model: report.modelId,
    weights: weights
      ? {
          file: weights.file,
          sha256: weights.sha256,
          official_sha256: weights.officialSha256 ?? null,
          verified: weights.verified,
        }
      : null,
    documents: report.documents,
    chunks: report.chunks,
    queries: report.queries,
    index_ms: report.indexMs,
    lexical_scoring: report.lexicalScoring,
    modes: report.modes.map((m) => ({
      mode: m.mode,
      ndcg_at_10: m.ndcgAt10,
      recall_at_10: m.recallAt10,
      recall_at_100: m.recallAt100,
      query_ms_p50: m.queryMsP50,
      query_ms_p95: m.queryMsP95,
    })),
    warnings: reportWarnings(report),
  };
}

function percent(fraction: number): string {
  return (100 * fraction).toFixed(1);
}

function table(headers: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const format = (cells: readonly string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  return [format(headers), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(format)];
}
