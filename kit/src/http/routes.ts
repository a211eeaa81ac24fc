import type { IncomingMessage, ServerResponse } from 'node:http';

export type Handler = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

/** Path → method → handler. */
export type RouteTable = ReadonlyMap<string, Readonly<Record<string, Handler>>>;

export type RouteMatch =
  | { readonly kind: 'found'; readonly handler: Handler }
  | { readonly kind: 'not_found' }
  | { readonly kind: 'method_not_allowed'; readonly allow: string };

/** Exact-path routing: an unknown path is 404, a known path with another method is 405 + Allow. */
export function matchRoute(routes: RouteTable, method: string | undefined, url: string | undefined): RouteMatch {
  const path = pathOf(url);
  const methods = routes.get(path);
  if (!methods) return { kind: 'not_found' };
  const requested = (method ?? 'GET').toUpperCase();
  const handler = methods[requested] ?? (requested === 'HEAD' ? methods.GET : undefined);
  if (handler) return { kind: 'found', handler };
  return { kind: 'method_not_allowed', allow: Object.keys(methods).join(', ') };
}

/** The path of a request target, without query string. */
export function pathOf(url: string | undefined): string {
  const target = url ?? '/';
  const query = target.indexOf('?');
  return query === -1 ? target : target.slice(0, query);
}
