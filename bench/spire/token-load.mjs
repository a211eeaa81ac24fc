// Load generator for bench/spire: POST /token with one fixed form body (one SVID, reused: the
// token services run allow-reuse-within-lifetime, as they must on SPIRE), driven by autocannon.
// Usage: node token-load.mjs <url> <body-file> <warmup> <amount> <connections>
// Prints one JSON line: tokens/s over the measured requests and the status counts.
import { readFile } from 'node:fs/promises';
import autocannon from 'autocannon';

const [url, bodyFile, warmupText, amountText, connectionsText] = process.argv.slice(2);
const body = await readFile(bodyFile, 'utf8');

function run(amount) {
  const statuses = {};
  let lastResponseAt = 0;
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const instance = autocannon(
      {
        url: new URL('/token', url).href,
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body,
        connections: Number(connectionsText),
        amount,
      },
      (err) => {
        if (err) return reject(err);
        // autocannon notices `amount` on its 1 s tick; the last response marks the real end.
        resolve({ tokensPerS: (statuses[200] ?? 0) / ((lastResponseAt - started) / 1000), statuses });
      },
    );
    instance.on('response', (_client, statusCode) => {
      lastResponseAt = performance.now();
      statuses[statusCode] = (statuses[statusCode] ?? 0) + 1;
    });
  });
}

await run(Number(warmupText));
console.log(JSON.stringify(await run(Number(amountText))));
