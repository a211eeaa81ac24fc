import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Binds and resolves with the base URL actually bound (`--port 0` picks a free port). */
export function listen(server: Server, host: string, port: number): Promise<URL> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error) => reject(err);
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      const address = server.address() as AddressInfo;
      const hostPart = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      resolve(new URL(`http://${hostPart}:${address.port}`));
    });
  });
}

/** Closes the server and every idle or active connection. */
export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
