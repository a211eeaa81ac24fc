/**
 * The page's view of the search API (docs/retrieval.md#search-page): GET /filters and POST /search,
 * their answers parsed at this boundary into the types the page uses.
 */

export interface VaultInfo {
  readonly id: string;
  /** The vault's folder on this machine, for links that open a note; null when the server does not say. */
  readonly folder: string | null;
  /** The folder is an Obsidian vault (it has `.obsidian`). */
  readonly obsidian: boolean;
}

export interface Filters {
  readonly vaults: readonly VaultInfo[];
  readonly namespaces: readonly { readonly vault: string; readonly namespace: string }[];
  readonly tags: readonly { readonly tag: string; readonly notes: number }[];
  readonly modes: readonly string[];
}

export interface Hit {
  readonly vault: string;
  readonly path: string;
  readonly title: string;
  readonly heading: string;
  readonly lineStart: number;
  readonly lineEnd: number;
  readonly snippet: string;
  readonly marks: readonly (readonly [number, number])[];
}

export interface Answer {
  readonly hits: readonly Hit[];
  readonly corrections: readonly { readonly from: string; readonly to: string }[];
}

export type Outcome = { readonly ok: true; readonly answer: Answer } | { readonly ok: false; readonly message: string };

type Json = Readonly<Record<string, unknown>>;

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function list(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : [];
}

function text(record: Json, key: string): string {
  const value = record[key];
  return typeof value === 'string' ? value : '';
}

function integer(record: Json, key: string): number {
  const value = record[key];
  return typeof value === 'number' && Number.isInteger(value) ? value : 0;
}

function range(value: unknown): readonly [number, number] | undefined {
  const [start, end] = list(value);
  return typeof start === 'number' && typeof end === 'number' ? [start, end] : undefined;
}

function parseHit(value: unknown): Hit | undefined {
  if (!isRecord(value)) return undefined;
  return {
    vault: text(value, 'vault'),
    path: text(value, 'path'),
    title: text(value, 'title'),
    heading: text(value, 'heading'),
    lineStart: integer(value, 'line_start'),
    lineEnd: integer(value, 'line_end'),
    snippet: text(value, 'snippet'),
    marks: list(value.marks).flatMap((mark) => {
      const found = range(mark);
      return found === undefined ? [] : [found];
    }),
  };
}

function parseAnswer(body: Json): Answer {
  return {
    hits: list(body.hits).flatMap((hit) => parseHit(hit) ?? []),
    corrections: list(body.corrections).flatMap((c) =>
      isRecord(c) ? [{ from: text(c, 'from'), to: text(c, 'to') }] : [],
    ),
  };
}

function parseFilters(body: Json): Filters {
  return {
    vaults: list(body.vaults).flatMap((v) =>
      isRecord(v)
        ? [{ id: text(v, 'id'), folder: typeof v.folder === 'string' ? v.folder : null, obsidian: v.obsidian === true }]
        : [],
    ),
    namespaces: list(body.namespaces).flatMap((n) =>
      isRecord(n) ? [{ vault: text(n, 'vault'), namespace: text(n, 'namespace') }] : [],
    ),
    tags: list(body.tags).flatMap((t) => (isRecord(t) ? [{ tag: text(t, 'tag'), notes: integer(t, 'notes') }] : [])),
    modes: list(body.modes).flatMap((mode) => (typeof mode === 'string' ? [mode] : [])),
  };
}

async function json(response: Response): Promise<Json> {
  const body: unknown = await response.json().catch(() => undefined);
  return isRecord(body) ? body : {};
}

/** What a search can be narrowed to; the error message of the server when it cannot say. */
export async function fetchFilters(): Promise<
  { readonly ok: true; readonly filters: Filters } | { readonly ok: false; readonly message: string }
> {
  const response = await fetch('/filters', { headers: { Accept: 'application/json' } });
  const body = await json(response);
  if (!response.ok) return { ok: false, message: text(body, 'message') || `the server answered ${response.status}` };
  return { ok: true, filters: parseFilters(body) };
}

/** One search; an aborted one rejects with the abort. */
export async function search(request: Json, signal: AbortSignal): Promise<Outcome> {
  const response = await fetch('/search', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify(request),
    signal,
  });
  const body = await json(response);
  if (!response.ok) return { ok: false, message: text(body, 'message') || `the server answered ${response.status}` };
  return { ok: true, answer: parseAnswer(body) };
}
