import { request as httpRequest } from 'node:http';
import type { TestContext } from 'node:test';
import { closeServer, listen } from '@notegate/kit/http';
import { ResidentModel } from '../src/embed/resident-model.js';
import { createSearchServer } from '../src/http/search-server.js';
import { runIndex } from '../src/indexer/run-index.js';
import { SnapshotSource } from '../src/snapshot/snapshot-source.js';
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

/** Indexes the workspace (test model) unless told not to, then serves it on a free loopback port. */
export async function startSearchServer(
  t: TestContext,
  ws: Workspace,
  options: { index?: boolean; ftsTokenizer?: 'auto' | 'unicode61'; model?: ResidentModel } = {},
): Promise<RunningServer> {
  if (options.index ?? true) await runIndex(indexOptions(ws, { ftsTokenizer: options.ftsTokenizer ?? 'auto' }));
  const logs: string[] = [];
  const snapshots = new SnapshotSource({
    indexPath: ws.config.indexPath,
    model: ws.config.model,
    reloadSpacing: () => 0,
  });
  const model = options.model ?? ResidentModel.loading(() => sharedEmbedder(ws.config.model.id));
  const server = createSearchServer({
    model,
    modelId: ws.config.model.id,
    snapshots,
    indexPath: ws.config.indexPath,
    vaults: ws.config.vaults.map((v) => v.id),
    bindHost: '127.0.0.1',
    log: (line) => logs.push(line),
    version: TEST_VERSION,
  });
  await snapshots.start();
  if (!options.model) await model.settled();
  const url = await listen(server, '127.0.0.1', 0);
  t.after(async () => {
    await closeServer(server);
    await snapshots.close();
  });
  const request: RunningServer['request'] = (o) => send(url, o);
  return {
    url,
    snapshots,
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
            body: text === '' ? undefined : JSON.parse(text),
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
