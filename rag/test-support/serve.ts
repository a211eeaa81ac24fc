import { request as httpRequest } from 'node:http';
import type { TestContext } from 'node:test';
import { closeServer, listen } from '@notegate/kit/http';
import type { Embedder } from '../src/embed/embedder.js';
import { createSearchServer } from '../src/http/search-server.js';
import { runIndex } from '../src/indexer/run-index.js';
import { SearchIndex } from '../src/search/search-index.js';
import type { SnapshotSource } from '../src/snapshot/snapshot-source.js';
import { sharedEmbedder, type Workspace } from './fixtures.js';
import { indexOptions } from './run.js';

/** The version a test server reports in /health. */
export const TEST_VERSION = '0.0.0-test';

export interface Reply {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: unknown;
}

export interface RunningServer {
  readonly url: URL;
  readonly snapshots: SnapshotSource;
  readonly logs: string[];
  search(body: unknown): Promise<Reply>;
  request(options: {
    method?: string;
    path: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
  }): Promise<Reply>;
}

/**
 * Indexes the workspace (test model) unless told not to, then serves it on a
 * free loopback port. `loadEmbedder` replaces the test model's loader (a
 * failing or never-finishing one).
 */
export async function startSearchServer(
  t: TestContext,
  ws: Workspace,
  options: { index?: boolean; lexicalLayout?: 'auto' | 'words'; loadEmbedder?: () => Promise<Embedder> } = {},
): Promise<RunningServer> {
  if (options.index ?? true) await runIndex(indexOptions(ws, { lexicalLayout: options.lexicalLayout ?? 'auto' }));
  const logs: string[] = [];
  const index = new SearchIndex({
    indexPath: ws.config.indexPath,
    model: ws.config.model,
    modelCacheDir: '/nonexistent',
    loadEmbedder: options.loadEmbedder ?? ((model) => sharedEmbedder(model.id)),
    reloadSpacing: () => 0,
  });
  const server = createSearchServer({
    index,
    indexPath: ws.config.indexPath,
    vaults: ws.config.vaults.map((v) => v.id),
    bindHost: '127.0.0.1',
    log: (line) => logs.push(line),
    version: TEST_VERSION,
  });
  await index.start();
  if (!options.loadEmbedder) await index.modelSettled();
  const url = await listen(server, '127.0.0.1', 0);
  t.after(async () => {
    await closeServer(server);
    await index.close();
  });
  const request: RunningServer['request'] = (o) => send(url, o);
  return {
    url,
    snapshots: index.snapshots,
    logs,
    request,
    search: (body) => request({ method: 'POST', path: '/search', body: JSON.stringify(body) }),
  };
}

function send(
  url: URL,
  o: { method?: string; path: string; headers?: Record<string, string>; body?: string | Buffer },
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: url.hostname, port: url.port, method: o.method ?? 'GET', path: o.path, headers: { ...o.headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            // JSON is parsed; the search page's files stay text.
            body: text === '' ? undefined : /json/.test(res.headers['content-type'] ?? '') ? JSON.parse(text) : text,
          });
        });
      },
    );
    req.on('error', reject);
    req.end(o.body);
  });
}

/** The `hits` of a 200 reply, typed loosely for assertions. */
export function hitsOf(reply: Reply): Record<string, unknown>[] {
  const body = reply.body;
  if (
    reply.status !== 200 ||
    typeof body !== 'object' ||
    body === null ||
    !('hits' in body) ||
    !Array.isArray(body.hits)
  ) {
    throw new Error(`expected 200 with hits, got ${reply.status} ${JSON.stringify(body)}`);
  }
  return body.hits;
}
