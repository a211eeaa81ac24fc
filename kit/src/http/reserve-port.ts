import { createServer } from 'node:net';

/**
 * A loopback port that was free a moment ago, for a server whose URL (an issuer, a resource) carries
 * its port: it must be known before the server starts (`--port 0` would bind a port the URL does not
 * name). Another process may take it meanwhile, so callers retry on EADDRINUSE.
 */
export function reservePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      probe.close(() => (port > 0 ? resolve(port) : reject(new Error('no port was bound'))));
    });
  });
}
