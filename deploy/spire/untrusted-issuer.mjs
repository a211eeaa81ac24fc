// Scenario 4's authorization server that the agent does not trust (service untrusted-issuer): the
// demo's own UntrustedIssuer on port 9000, which counts every request it receives, and the count on
// port 9001 (GET /requests), which scenarios.sh reads before and after the agent's run.
import { createServer } from 'node:http';
import { UntrustedIssuer } from '/app/auth/dist/src/demo/untrusted-issuer.js';

const untrusted = await UntrustedIssuer.start({ host: '0.0.0.0', port: 9000, issuer: 'http://untrusted-issuer:9000' });
createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ count: untrusted.requests.length, requests: untrusted.requests }));
}).listen(9001, '0.0.0.0', () => console.log(`listening on ${untrusted.issuer} (request count on :9001)`));
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(0));
