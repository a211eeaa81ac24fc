import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * docs/retrieval.md#config: the repository root is the nearest ancestor holding
 * `.git` (directory or file); if none, the nearest holding a `package.json`
 * that declares `workspaces`; failing both, `fallback`.
 */
export function findRepositoryRoot(startDir: string, fallback: string = startDir): string {
  const ancestors = ancestorsOf(path.resolve(startDir));
  return (
    ancestors.find((dir) => existsSync(path.join(dir, '.git'))) ??
    ancestors.find((dir) => declaresWorkspaces(path.join(dir, 'package.json'))) ??
    fallback
  );
}

function ancestorsOf(dir: string): string[] {
  const list = [dir];
  for (let parent = path.dirname(dir); parent !== list[list.length - 1]; parent = path.dirname(parent)) {
    list.push(parent);
  }
  return list;
}

function declaresWorkspaces(file: string): boolean {
  if (!existsSync(file)) return false;
  try {
    const manifest: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return typeof manifest === 'object' && manifest !== null && 'workspaces' in manifest;
  } catch {
    return false;
  }
}
