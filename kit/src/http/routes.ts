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

/** How a server answers what its routes do not: each server's own error bodies. */
export interface RouteAnswers {
  /** No route has the request's path. */
  readonly notFound: Handler;
  /** A route has the path but not the method; the `Allow` header is set already (RFC 9110 §15.5.6). */
  readonly methodNotAllowed: (req: IncomingMessage, res: ServerResponse, allow: string) => void;
  /** The route's handler threw or rejected before anything was sent (afterwards the connection is destroyed). */
  readonly failed: (req: IncomingMessage, res: ServerResponse, err: unknown) => void;
}

/**
 * A request handler over exact-path routes: the route's handler, else 404, else 405 with `Allow`, and a
 * handler that fails gets the server's 500 (or, once its answer has begun, a destroyed connection).
 */
export function routeRequests(routes: RouteTable, answers: RouteAnswers): Handler {
  return (req, res) => {
    const route = matchRoute(routes, req.method, req.url);
    if (route.kind === 'not_found') return answers.notFound(req, res);
    if (route.kind === 'method_not_allowed') {
      res.setHeader('Allow', route.allow);
      return answers.methodNotAllowed(req, res, route.allow);
    }
    Promise.resolve()
      .then(() => route.handler(req, res))
      .catch((err: unknown) => {
        if (res.headersSent) res.destroy();
        else answers.failed(req, res, err);
      });
  };
}
