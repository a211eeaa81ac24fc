import { terminalJson } from '@notegate/kit';
import { type Command, type CommandLine, EXIT, UsageError } from '@notegate/kit/cli';
import { hasVectors } from '../config/models.js';
import { RagError } from '../errors/rag-error.js';
import { searchJson } from '../http/search-server.js';
import { SEARCH_MODES } from '../search/hybrid-search.js';
import { openIndex } from '../search/search-index.js';
import {
  checkSearchRequest,
  SEARCH_DEFAULTS,
  type SearchField,
  type SearchRequest,
  TOP_MAX,
  TOP_MIN,
} from '../search/search-request.js';
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
  tag: {
    type: 'string',
    multiple: true,
    valueName: 'TAG',
    description: 'Only notes with this frontmatter tag, or a tag nested below it (repeatable: any of them).',
    defaultText: 'every note',
  },
  files: { type: 'boolean', description: 'Whole notes instead of passages: each note once, with all its text.' },
  json: { type: 'boolean', description: 'Print the hits as JSON on stdout (the body of POST /search).' },
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

/** The flag (or operand) that sets each field of the search request. */
const FLAG_OF: Partial<Readonly<Record<SearchField, string>>> = {
  query: 'QUERY',
  top: '--top',
  mode: '--mode',
  vaults: '--vault',
  tags: '--tag',
  files: '--files',
};

async function runSearch(line: CommandLine<typeof OPTIONS>, deps: RagCommandDeps): Promise<number> {
  const { options } = line;
  if (line.operands.length === 0)
    throw new UsageError('QUERY: give the search text (quote it when it has several words)');
  const environment = deps.environment();
  const config = configFor(options.config, deps, environment);
  const request = searchRequestOf(line, {
    vaults: config.vaults.map((vault) => vault.id),
    vectors: hasVectors(config.model),
  });
  const index = await openIndex({
    indexPath: config.indexPath,
    model: config.model,
    modelCacheDir: environment.modelCacheDir,
    modelHubUrl: environment.modelHubUrl,
    denseScan: environment.denseScan,
    loadModel: 'when-needed',
    memoryWords: false,
  });
  try {
    const result = await index.search(request).catch((err: unknown) => {
      // The lexical leg needs no model: the way out that works at once (docs/retrieval.md#notegate-rag-search).
      if (err instanceof RagError && err.code === 'ERR_MODEL_UNAVAILABLE' && request.mode !== 'lexical') {
        throw new RagError(err.code, `${err.message}\nThis search works without the model now: --mode lexical.`);
      }
      throw err;
    });
    const color = process.stdout.isTTY === true && process.env.NO_COLOR === undefined;
    process.stdout.write(
      options.json
        ? `${terminalJson(searchJson(result, request.query), 2)}\n`
        : formatHits(result, request.query, { color }),
    );
    return EXIT.ok;
  } finally {
    await index.close();
  }
}

/**
 * The operands and flags as a search request, checked as POST /search checks a body
 * (docs/retrieval.md#post-search); a problem names the flag that set the field.
 */
function searchRequestOf(
  line: CommandLine<typeof OPTIONS>,
  context: { readonly vaults: readonly string[]; readonly vectors: boolean },
): SearchRequest {
  const { options } = line;
  const top = options.top.trim();
  const checked = checkSearchRequest(
    {
      query: line.operands.join(' '),
      // Digits are a number; anything else is passed on as given, for the check to refuse.
      top: /^\d+$/.test(top) ? Number(top) : options.top,
      ...(options.mode !== undefined && { mode: options.mode }),
      ...(options.vault.length > 0 && { vaults: options.vault }),
      ...(options.tag.length > 0 && { tags: options.tag }),
      ...(options.files && { files: true }),
    },
    context,
  );
  if (!checked.ok) {
    const flag = (checked.field && FLAG_OF[checked.field]) ?? checked.field ?? 'QUERY';
    throw new UsageError(`${flag}: ${checked.problem}`);
  }
  return checked.request;
}
