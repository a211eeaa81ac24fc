/** The generic HTTP helpers, shared with other packages of the workspace (`@notegate/kit/http`). */

export { acceptListsMediaType } from './accept.js';
export type { BoundedServerOptions, HttpTimeouts, ServerLimits } from './bounded-server.js';
export {
  BUSY_HEADROOM_CONNECTIONS,
  createBoundedServer,
  DEFAULT_MAX_CONNECTIONS,
  httpTimeouts,
  REQUEST_TIMEOUT_MS,
} from './bounded-server.js';
export { closeServer, listen } from './listen.js';
export { BodyTooLargeError, readBody, readResponseText } from './read-body.js';
export { reservePort } from './reserve-port.js';
export { sendJson, sendJsonAndClose } from './respond.js';
export type { Handler, RouteAnswers, RouteMatch, RouteTable } from './routes.js';
export { matchRoute, pathOf, routeRequests } from './routes.js';
