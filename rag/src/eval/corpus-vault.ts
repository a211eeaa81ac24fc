import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { BeirDocument } from './beir-dataset.js';

/**
 * Writes each document as one markdown note, so that `eval` indexes them the
 * way `index` indexes a vault (chunking included): the title in frontmatter
 * (a JSON string is a YAML double-quoted scalar), then the text. Returns the
 * note path of each document id's note, relative to `dir`.
 */
export function writeCorpusVault(dir: string, documents: readonly BeirDocument[]): Map<string, string> {
  const documentOf = new Map<string, string>();
  documents.forEach((doc, i) => {
    const name = `${i}-${safeName(doc.id)}.md`;
    const frontmatter = doc.title.trim() === '' ? '' : `---\ntitle: ${JSON.stringify(doc.title)}\n---\n\n`;
    writeFileSync(path.join(dir, name), `${frontmatter}${doc.text}\n`);
    documentOf.set(name, doc.id);
  });
  return documentOf;
}

/** A file-name-safe rendering of an id (readable when it already is one); uniqueness comes from the index prefix. */
function safeName(id: string): string {
  return id.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 80);
}
