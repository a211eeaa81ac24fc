// The load generator's own ceiling: a server that reads each token request and answers a fixed
// 200 JSON body without any work. If this is not far above the token servers, the numbers measure
// the load generator, not the servers.
// Usage: node floor-server.mjs  → prints "listening on <url>".
import { createServer } from 'node:http';

const body = JSON.stringify({
  access_token: 'x'.repeat(500),
  token_type: 'Bearer',
  expires_in: 300,
  scope: 'notes:read',
});
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  });
});
server.listen(0, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${server.address().port}/`));
