import { readFile } from 'node:fs/promises';

/** The entries of a JSON-lines audit log file, in order; a file not written yet has none. */
export async function readAuditFile(path: string): Promise<Record<string, unknown>[]> {
  const text = await readFile(path, 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return '';
    throw err;
  });
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}
