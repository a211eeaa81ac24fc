/**
 * The search page of `notegate-rag serve` (docs/retrieval.md#search-page): results while typing, the
 * filters of POST /search, keyboard choice of a hit, and a link that opens it.
 */
import { type Answer, type Filters, fetchFilters, search, type VaultInfo } from './api.js';
import { isOpenWith, type OpenWith, openUrl } from './links.js';
import { hitElement } from './render.js';

/** Ours: a pause in typing this long starts a search (each key would be a request otherwise). */
const TYPING_PAUSE_MS = 120;
const HITS_PER_PAGE = 20;
/** The value of the folder choice that stands for a vault's root folder (a namespace never holds a /). */
const ROOT_FOLDER = '/';
const OPEN_WITH_KEY = 'notegate.open-with';

function element<T extends HTMLElement>(id: string, type: new () => T): T {
  const found = document.getElementById(id);
  if (!(found instanceof type)) throw new Error(`the page lacks #${id}`);
  return found;
}

const form = element('search', HTMLFormElement);
const query = element('query', HTMLInputElement);
const vault = element('vault', HTMLSelectElement);
const namespace = element('namespace', HTMLSelectElement);
const tag = element('tag', HTMLSelectElement);
const mode = element('mode', HTMLSelectElement);
const files = element('files', HTMLInputElement);
const openWith = element('open-with', HTMLSelectElement);
const status = element('status', HTMLParagraphElement);
const hits = element('hits', HTMLDivElement);

let filters: Filters = { vaults: [], namespaces: [], tags: [], modes: [] };
let running: AbortController | undefined;
let pause: ReturnType<typeof setTimeout> | undefined;
let chosen = -1;

function option(value: string, label: string): HTMLOptionElement {
  const item = document.createElement('option');
  item.value = value;
  item.textContent = label;
  return item;
}

function say(message: string, error = false): void {
  status.textContent = message;
  status.classList.toggle('error', error);
}

/** The folders of the chosen vault (of every vault when none is chosen), the root first. */
function fillNamespaces(): void {
  const kept = namespace.value;
  const names = new Set(
    filters.namespaces.filter((n) => vault.value === '' || n.vault === vault.value).map((n) => n.namespace),
  );
  const sorted = [...names].sort((a, b) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b)));
  namespace.replaceChildren(
    option('', 'all'),
    ...sorted.map((name) => (name === '' ? option(ROOT_FOLDER, '(vault root)') : option(name, name))),
  );
  namespace.value = [...namespace.options].some((o) => o.value === kept) ? kept : '';
}

function fillFilters(): void {
  vault.replaceChildren(option('', 'all'), ...filters.vaults.map((v) => option(v.id, v.id)));
  tag.replaceChildren(option('', 'any'), ...filters.tags.map((t) => option(t.tag, `#${t.tag} (${t.notes})`)));
  mode.replaceChildren(...filters.modes.map((m) => option(m, m)));
  fillNamespaces();
}

/** The body of POST /search for what the page shows now. */
function request(): Record<string, unknown> {
  const body: Record<string, unknown> = { query: query.value, top: HITS_PER_PAGE };
  if (mode.value !== '') body.mode = mode.value;
  if (vault.value !== '') body.vaults = [vault.value];
  if (namespace.value !== '') body.namespaces = [namespace.value === ROOT_FOLDER ? '' : namespace.value];
  if (tag.value !== '') body.tags = [tag.value];
  if (files.checked) body.files = true;
  return body;
}

function vaultInfo(id: string): VaultInfo | undefined {
  return filters.vaults.find((v) => v.id === id);
}

function chosenApp(): OpenWith {
  return isOpenWith(openWith.value) ? openWith.value : 'auto';
}

/** Shows the hits of a search for `asked`, which the list records (what it shows answers that text). */
function show(answer: Answer, asked: string): void {
  const app = chosenApp();
  hits.dataset.query = asked;
  hits.replaceChildren(
    ...answer.hits.map((hit, i) => hitElement(hit, i, openUrl(vaultInfo(hit.vault), hit.path, hit.lineStart, app))),
  );
  const unit = files.checked ? 'note' : 'passage';
  const count =
    answer.hits.length === 0 ? 'no matches' : `${answer.hits.length} ${unit}${answer.hits.length > 1 ? 's' : ''}`;
  const instead = answer.corrections.map((c) => `${c.to} (not ${c.from})`).join(', ');
  say(instead === '' ? count : `${count} · searched for ${instead}`);
  choose(answer.hits.length > 0 ? 0 : -1);
}

async function runSearch(): Promise<void> {
  clearTimeout(pause);
  running?.abort();
  if (query.value.trim() === '') {
    running = undefined;
    delete hits.dataset.query;
    hits.replaceChildren();
    choose(-1);
    say('');
    return;
  }
  const controller = new AbortController();
  running = controller;
  const body = request();
  try {
    const outcome = await search(body, controller.signal);
    if (running !== controller) return;
    if (outcome.ok) show(outcome.answer, String(body.query));
    else {
      hits.replaceChildren();
      choose(-1);
      say(outcome.message, true);
    }
  } catch (err) {
    if (!controller.signal.aborted) say(`the search failed: ${err instanceof Error ? err.message : String(err)}`, true);
  }
}

function choose(index: number): void {
  const items = [...hits.children];
  chosen = items.length === 0 ? -1 : Math.max(0, Math.min(index, items.length - 1));
  for (const [i, item] of items.entries()) item.setAttribute('aria-selected', String(i === chosen));
  const current = items[chosen];
  if (current instanceof HTMLElement) {
    query.setAttribute('aria-activedescendant', current.id);
    current.scrollIntoView({ block: 'nearest' });
  } else {
    query.removeAttribute('aria-activedescendant');
  }
}

function openChosen(): void {
  const link = hits.children[chosen]?.querySelector('a.title');
  if (link instanceof HTMLAnchorElement) link.click();
}

function onKey(event: KeyboardEvent): void {
  const typing = event.target instanceof HTMLInputElement || event.target instanceof HTMLSelectElement;
  if (event.key === '/' && !typing) {
    event.preventDefault();
    query.focus();
    query.select();
  } else if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
    if (event.target instanceof HTMLSelectElement) return;
    event.preventDefault();
    choose(chosen + (event.key === 'ArrowDown' ? 1 : -1));
  } else if (event.key === 'Enter' && chosen >= 0 && !(event.target instanceof HTMLSelectElement)) {
    event.preventDefault();
    openChosen();
  } else if (event.key === 'Escape') {
    if (query.value !== '') {
      query.value = '';
      void runSearch();
    } else {
      query.blur();
    }
  }
}

async function start(): Promise<void> {
  const saved = localStorage.getItem(OPEN_WITH_KEY);
  if (saved !== null && isOpenWith(saved)) openWith.value = saved;
  const loaded = await fetchFilters().catch((err: unknown) => ({
    ok: false as const,
    message: `the server cannot be reached: ${err instanceof Error ? err.message : String(err)}`,
  }));
  if (!loaded.ok) {
    say(loaded.message, true);
    return;
  }
  filters = loaded.filters;
  fillFilters();
  form.addEventListener('submit', (event) => event.preventDefault());
  query.addEventListener('input', () => {
    clearTimeout(pause);
    pause = setTimeout(() => void runSearch(), TYPING_PAUSE_MS);
  });
  vault.addEventListener('change', () => {
    fillNamespaces();
    void runSearch();
  });
  for (const choice of [namespace, tag, mode, files]) choice.addEventListener('change', () => void runSearch());
  openWith.addEventListener('change', () => {
    localStorage.setItem(OPEN_WITH_KEY, chosenApp());
    void runSearch();
  });
  hits.addEventListener('click', (event) => {
    const item = event.target instanceof Element ? event.target.closest('.hit') : null;
    if (item instanceof HTMLElement) choose(Number(item.dataset.index));
  });
  document.addEventListener('keydown', onKey);
  query.focus();
  document.body.dataset.ready = 'true';
  if (query.value.trim() !== '') await runSearch();
}

void start();
