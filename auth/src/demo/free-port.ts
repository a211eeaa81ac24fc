import { createServer } from 'node:net';

/**
 * A port that was free a moment ago on `host`. The servers' issuer and resource URLs carry their
 * port, so it must be known before they start (`--port 0` would bind a port the URL does not name);
 * another process may take it meanwhile, so callers retry on EADDRINUSE.
 */
export function reservePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, host, () => {
      const address = probe.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      probe.close(() => (port > 0 ? resolve(port) : reject(new Error('no port was bound'))));
    });
  });
}
