/**
 * The command the wrapper tests run (`node -e WRAPPER_CHILD <record> <mode> [code]`): it records what
 * it was given (token file path, mode, content, exported token) as JSON in <record>, then:
 * `exit N` exits with N; `crash` dies of SIGKILL; `trap N` exits with N on SIGINT/SIGTERM/SIGHUP;
 * `ignore` records SIGTERM and keeps running; `wait` just waits. Nothing goes to stdout.
 */
export const WRAPPER_CHILD = `
const fs = require('node:fs');
const [record, mode, code] = process.argv.slice(1);
const path = process.env.MCP_ACCESS_TOKEN_FILE;
const facts = {
  path,
  mode: (fs.statSync(path).mode & 0o777).toString(8),
  token: fs.readFileSync(path, 'utf8'),
  exported: process.env.MCP_ACCESS_TOKEN ?? null,
  pid: process.pid,
};
// Written whole, then renamed: the test reads the record while the child runs and must never see half of it.
const write = (extra) => {
  fs.writeFileSync(record + '.tmp', JSON.stringify({ ...facts, ...extra }));
  fs.renameSync(record + '.tmp', record);
};
if (mode === 'exit') { write({}); process.exit(Number(code)); }
if (mode === 'crash') { write({}); process.kill(process.pid, 'SIGKILL'); }
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  if (mode === 'trap') process.on(signal, () => { write({ signal }); process.exit(Number(code)); });
}
if (mode === 'ignore') process.on('SIGTERM', () => write({ signal: 'SIGTERM', fileExists: fs.existsSync(path) }));
write({ ready: true });
setInterval(() => {}, 1000);
`;

export interface ChildRecord {
  readonly path: string;
  readonly mode: string;
  readonly token: string;
  readonly exported: string | null;
  readonly pid: number;
  readonly ready?: boolean;
  readonly signal?: string;
  readonly fileExists?: boolean;
}
