import { type Command, type CommandLine, EXIT, parseChoice, parseInteger, UsageError } from '@notegate/kit/cli';
import { hasVectors } from '../config/models.js';
import { SEARCH_DEFAULTS, TOP_MAX, TOP_MIN } from '../http/search-request.js';
import { hitJson } from '../http/search-server.js';
import { SEARCH_MODES, type SearchMode } from '../search/hybrid-search.js';
import { openIndex } from '../search/search-index.js';
import { CONFIG_OPTION, configFor, type RagCommandDeps } from './rag-command.js';
import { formatHits } from './search-output.js';

const OPTIONS = {
  config: CONFIG_OPTION,
  top: {
    type: 'string',
    valueName: 'N',
    description: `Number of hits, ${TOP_MIN} to ${TOP_MAX}.`,
    default: String(SEARCH_DEFAULTS.top),
  },
  mode: {
    type: 'string',
    valueName: 'MODE',
    description: `${SEARCH_MODES.join(', ')}.`,
    defaultText: 'hybrid; lexical for an index without vectors (embed_model none)',
  },
  vault: {
    type: 'string',
    multiple: true,
    valueName: 'ID',
    description: 'Search only this vault of the config.',
    defaultText: 'every vault',
  },
  json: { type: 'boolean', description: 'Print the hits as JSON on stdout (the fields of POST /search).' },
} as const;

export function createSearchCommand(deps: RagCommandDeps): Command<typeof OPTIONS> {
  return {
    name: 'notegate-rag search',
    usage: 'notegate-rag search QUERY [options]',
    summary:
      'Searches the index from the shell, with the same search as POST /search: title, path:lines, heading and\n' +
      'a snippet with the matched terms marked on a terminal. Words after the options are the query.\n' +
      'The model is never downloaded here; a lexical search loads none.',
    options: OPTIONS,
    acceptsOperands: true,
    run: (line) => runSearch(line, deps),
  };
}

async function runSearch(line: CommandLine<typeof OPTIONS>, deps: RagCommandDeps): Promise<number> {
  const { options } = line;
  const query = line.operands.join(' ');
  if (query.trim() === '') throw new UsageError('QUERY: give the search text (quote it when it has several words)');
  const environment = deps.environment();
  const config = configFor(options.config, deps, environment);
  const mode = modeOf(options.mode, hasVectors(config.model));
  const top = parseInteger('--top', options.top, TOP_MIN, TOP_MAX);
  const known = config.vaults.map((vault) => vault.id);
  const unknown = options.vault.find((id) => !known.includes(id));
  if (unknown !== undefined)
    throw new UsageError(`--vault: '${unknown}' is not in the config (allowed: ${known.join(', ')})`);
  const index = await openIndex({
    indexPath: config.indexPath,
    model: config.model,
    modelCacheDir: environment.modelCacheDir,
    modelHubUrl: environment.modelHubUrl,
    loadModel: 'when-needed',
    memoryWords: false,
  });
  try {
    const result = await index.search({
      query,
      top,
      vaults: options.vault.length > 0 ? options.vault : undefined,
      namespaces: undefined,
      mode,
      mmr: false,
      mmrLambda: SEARCH_DEFAULTS.mmrLambda,
    });
    const color = process.stdout.isTTY === true && process.env.NO_COLOR === undefined;
    process.stdout.write(
      options.json
        ? `${JSON.stringify({ hits: result.hits.map(hitJson) }, null, 2)}\n`
        : formatHits(result.hits, query, { color }),
    );
    return EXIT.ok;
  } finally {
    await index.close();
  }
}

function modeOf(flag: string | undefined, vectors: boolean): SearchMode {
  if (flag === undefined) return vectors ? SEARCH_DEFAULTS.mode : 'lexical';
  const mode = parseChoice('--mode', flag, SEARCH_MODES);
  if (mode !== 'lexical' && !vectors) {
    throw new UsageError(
      `--mode ${mode}: needs vectors, and this index has none (embed_model none); use --mode lexical`,
    );
  }
  return mode;
}
