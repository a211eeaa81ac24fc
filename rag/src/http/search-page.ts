import { existsSync, readdirSync, readFileSync } from 'node:fs';
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import { RagError } from '../errors/rag-error.js';

/**
 * docs/retrieval.md#search-page: the page runs only the server's own script and style files (no inline
 * script or style, nothing from elsewhere), talks only to its server, and cannot be framed.
 */
const PAGE_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Sent with every file of the page: the policy, and no guessing of types, no referrer, no embedding elsewhere. */
const PAGE_HEADERS: OutgoingHttpHeaders = {
  'Content-Security-Policy': PAGE_CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Cache-Control': 'no-cache',
};

export interface PageFile {
  readonly body: Buffer;
  readonly type: string;
}

/** The page's markup and style, beside the package's sources (`rag/page`). */
const SOURCE_DIR = new URL('../../../page/', import.meta.url);
/** Its modules, compiled by `tsc -b` from `rag/page/src` to `rag/dist/page/src`. */
const MODULE_DIR = new URL('../../page/src/', import.meta.url);

let loaded: ReadonlyMap<string, PageFile> | undefined;

/**
 * The page's files by request path, read once: `/` is the markup, `/page/search.css` the style,
 * `/page/icon.svg` its icon and `/page/<module>.js` each compiled module. Missing files are a broken
 * install, named.
 */
export function pageFiles(): ReadonlyMap<string, PageFile> {
  loaded ??= readPageFiles();
  return loaded;
}

function readPageFiles(): ReadonlyMap<string, PageFile> {
  const modules = fileURLToPath(MODULE_DIR);
  if (!existsSync(modules)) {
    throw new RagError('ERR_PAGE_MISSING', `the search page's modules are missing from ${modules}; run 'npx tsc -b'`);
  }
  const files = new Map<string, PageFile>([
    ['/', { body: readFileSync(new URL('index.html', SOURCE_DIR)), type: 'text/html; charset=utf-8' }],
    ['/page/search.css', { body: readFileSync(new URL('search.css', SOURCE_DIR)), type: 'text/css; charset=utf-8' }],
    ['/page/icon.svg', { body: readFileSync(new URL('icon.svg', SOURCE_DIR)), type: 'image/svg+xml' }],
  ]);
  for (const name of readdirSync(modules).filter((file) => /^[a-z-]+\.js$/.test(file))) {
    files.set(`/page/${name}`, {
      body: readFileSync(new URL(name, MODULE_DIR)),
      type: 'text/javascript; charset=utf-8',
    });
  }
  return files;
}

export function sendPageFile(res: ServerResponse, file: PageFile): void {
  res.writeHead(200, { ...PAGE_HEADERS, 'Content-Type': file.type, 'Content-Length': file.body.length });
  res.end(file.body);
}
