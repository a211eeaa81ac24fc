/** The page's DOM for hits (docs/retrieval.md#search-page). Note text only ever becomes text nodes, never markup. */
import type { Hit } from './api.js';

/** The snippet as text with `<mark>` around the matched ranges. */
function snippetElement(hit: Hit): HTMLParagraphElement {
  const p = document.createElement('p');
  p.className = 'snippet';
  let at = 0;
  for (const [start, end] of hit.marks) {
    if (start < at || end > hit.snippet.length) continue;
    p.append(hit.snippet.slice(at, start));
    const mark = document.createElement('mark');
    mark.textContent = hit.snippet.slice(start, end);
    p.append(mark);
    at = end;
  }
  p.append(hit.snippet.slice(at));
  return p;
}

/** One hit: title (a link when it can be opened), vault/path:lines, heading trail, snippet. */
export function hitElement(hit: Hit, index: number, link: string | undefined): HTMLDivElement {
  const item = document.createElement('div');
  item.className = 'hit';
  item.id = `hit-${index}`;
  item.setAttribute('role', 'option');
  item.setAttribute('aria-selected', 'false');
  item.dataset.index = String(index);
  const title = document.createElement(link === undefined ? 'span' : 'a');
  title.className = 'title';
  title.textContent = hit.title;
  if (title instanceof HTMLAnchorElement && link !== undefined) title.href = link;
  const where = document.createElement('span');
  where.className = 'where';
  where.textContent = `${hit.vault}/${hit.path}:${hit.lineStart}-${hit.lineEnd}`;
  item.append(title, where);
  if (hit.heading !== '') {
    const heading = document.createElement('div');
    heading.className = 'heading';
    heading.textContent = hit.heading;
    item.append(heading);
  }
  if (hit.snippet !== '') item.append(snippetElement(hit));
  return item;
}
