import { terminalJson } from '@notegate/kit';
import { type Command, type CommandLine, EXIT, parseChoice, UsageError } from '@notegate/kit/cli';
import { findModel, hasVectors, type ModelSpec, modelWhitelist } from '../config/models.js';
import type { Split } from '../eval/beir-dataset.js';
import { runEval } from '../eval/run-eval.js';
import { EVAL_MODES, type EvalMode } from '../eval/score-mode.js';
import { formatReport, reportJson } from './eval-output.js';
import { createEvalProgress } from './eval-progress.js';
import { CONFIG_OPTION, configFor, type RagCommandDeps } from './rag-command.js';

const SPLITS: readonly Split[] = ['test', 'train', 'dev'];

const OPTIONS = {
  dataset: {
    type: 'string',
    valueName: 'DIR',
    description: 'A BEIR-format dataset: corpus.jsonl, queries.jsonl, qrels/<split>.tsv.',
    required: true,
  },
  split: {
    type: 'string',
    valueName: 'SPLIT',
    description: `Judgments to score: ${SPLITS.join(', ')}.`,
    default: 'test',
  },
  modes: {
    type: 'string',
    valueName: 'LIST',
    description: `Comma-separated, of ${EVAL_MODES.join(', ')}.`,
    defaultText: 'all four; lexical for embed_model none',
  },
  model: {
    type: 'string',
    valueName: 'ID',
    description: `Embedding model: ${modelWhitelist()}.`,
    defaultText: "the config's embed_model",
  },
  config: CONFIG_OPTION,
  json: { type: 'boolean', description: 'Print the report as JSON on stdout.' },
  quiet: { type: 'boolean', description: 'No progress on stderr.' },
  offline: { type: 'boolean', description: 'Never download the model; say which files to place where instead.' },
} as const;

export function createEvalCommand(deps: RagCommandDeps): Command<typeof OPTIONS> {
  return {
    name: 'notegate-rag eval',
    usage: 'notegate-rag eval --dataset DIR [options]',
    summary:
      'Measures retrieval quality on a BEIR-format dataset: indexes its corpus into a throw-away index with the\n' +
      'model, runs every judged query through the same search as POST /search (100 hits deep), and prints\n' +
      'nDCG@10, Recall@10 and Recall@100 (trec_eval definitions), index and query timings, the model file and\n' +
      'whether its SHA-256 is the official release (unverified weights make dense and hybrid numbers meaningless).',
    options: OPTIONS,
    run: (line) => runEvalCommand(line, deps),
  };
}

async function runEvalCommand(line: CommandLine<typeof OPTIONS>, deps: RagCommandDeps): Promise<number> {
  const { options } = line;
  const environment = deps.environment();
  const split = parseChoice('--split', options.split, SPLITS);
  const model = modelOf(options.model, () => configFor(options.config, deps, environment).model);
  const modes = modesOf(options.modes, model);
  const progress = createEvalProgress(process.stderr, { enabled: !options.quiet });
  try {
    const report = await runEval({
      datasetDir: options.dataset,
      split,
      modes,
      model,
      modelCacheDir: environment.modelCacheDir,
      download: { hubUrl: environment.modelHubUrl, fetch: (url, init) => fetch(url, init), enabled: !options.offline },
      onProgress: progress.onProgress,
    });
    progress.finish();
    process.stdout.write(options.json ? `${terminalJson(reportJson(report), 2)}\n` : formatReport(report));
    return EXIT.ok;
  } finally {
    progress.finish();
  }
}

function modelOf(flag: string | undefined, fromConfig: () => ModelSpec): ModelSpec {
  if (flag === undefined) return fromConfig();
  const model = findModel(flag);
  if (!model)
    throw new UsageError(`--model: ${JSON.stringify(flag)} is not whitelisted (allowed: ${modelWhitelist()})`);
  return model;
}

function modesOf(flag: string | undefined, model: ModelSpec): EvalMode[] {
  if (flag === undefined) return hasVectors(model) ? [...EVAL_MODES] : ['lexical'];
  const modes = [...new Set(flag.split(',').map((mode) => parseChoice('--modes', mode.trim(), EVAL_MODES)))];
  const needVectors = modes.filter((mode) => mode !== 'lexical');
  if (!hasVectors(model) && needVectors.length > 0) {
    throw new UsageError(`--modes ${needVectors.join(',')}: needs vectors, and embed_model none has none; use lexical`);
  }
  return modes;
}
