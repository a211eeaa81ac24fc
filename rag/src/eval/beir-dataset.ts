import { createReadStream, existsSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { errorMessage } from '@notegate/kit';
import { z } from 'zod';
import { RagError } from '../errors/rag-error.js';

/** A BEIR-format retrieval dataset (docs/retrieval.md#eval): documents, queries, graded judgments. */
export interface BeirDataset {
  readonly documents: readonly BeirDocument[];
  /** Queries of the split: those the judgments name, with their text. */
  readonly queries: ReadonlyMap<string, string>;
  /** Query id → document id → grade (> 0 is relevant). */
  readonly judgments: ReadonlyMap<string, ReadonlyMap<string, number>>;
}

export interface BeirDocument {
  readonly id: string;
  readonly title: string;
  readonly text: string;
}

export type Split = 'test' | 'train' | 'dev';

const Id = z.union([z.string().min(1), z.number()]).transform(String);
const DocumentLine = z.object({ _id: Id, title: z.string().optional(), text: z.string() });
const QueryLine = z.object({ _id: Id, text: z.string() });

/**
 * Reads `corpus.jsonl`, `queries.jsonl` and `qrels/<split>.tsv` from `dir`.
 * Line endings may be LF or CRLF (BEIR's qrels ship with CRLF); blank lines
 * are skipped; a header line in the judgments is recognised by its
 * non-numeric score. Anything else malformed is an ERR_DATASET naming the
 * file and the line.
 */
export async function loadBeirDataset(dir: string, split: Split): Promise<BeirDataset> {
  const documents: BeirDocument[] = [];
  const seen = new Set<string>();
  await readLines(dir, 'corpus.jsonl', (line, where) => {
    const doc = parseJsonLine(line, DocumentLine, where);
    if (seen.has(doc._id)) throw datasetError(where, `duplicate _id ${JSON.stringify(doc._id)}`);
    seen.add(doc._id);
    documents.push({ id: doc._id, title: doc.title ?? '', text: doc.text });
  });
  const allQueries = new Map<string, string>();
  await readLines(dir, 'queries.jsonl', (line, where) => {
    const query = parseJsonLine(line, QueryLine, where);
    if (allQueries.has(query._id)) throw datasetError(where, `duplicate _id ${JSON.stringify(query._id)}`);
    allQueries.set(query._id, query.text);
  });
  const judgments = new Map<string, Map<string, number>>();
  const queries = new Map<string, string>();
  await readLines(dir, path.join('qrels', `${split}.tsv`), (line, where, index) => {
    const fields = line.split('\t').map((field) => field.trim());
    const [queryId, docId, score] = fields;
    // BEIR's header line: `query-id corpus-id score`.
    if (index === 0 && fields.length === 3 && Number.isNaN(Number(score))) return;
    if (fields.length !== 3 || !queryId || !docId || score === undefined || !/^-?\d+$/.test(score)) {
      throw datasetError(where, `expected query-id<TAB>corpus-id<TAB>integer score, got ${JSON.stringify(line)}`);
    }
    const text = allQueries.get(queryId);
    if (text === undefined) throw datasetError(where, `query-id ${JSON.stringify(queryId)} is not in queries.jsonl`);
    queries.set(queryId, text);
    const graded = judgments.get(queryId) ?? new Map<string, number>();
    graded.set(docId, Number(score));
    judgments.set(queryId, graded);
  });
  if (judgments.size === 0) throw datasetError(path.join(dir, 'qrels', `${split}.tsv`), 'no judgments');
  return { documents, queries, judgments };
}

async function readLines(
  dir: string,
  name: string,
  onLine: (line: string, where: string, index: number) => void,
): Promise<void> {
  const file = path.join(dir, name);
  if (!existsSync(file)) {
    throw datasetError(file, 'not found (a BEIR dataset has corpus.jsonl, queries.jsonl and qrels/<split>.tsv)');
  }
  const lines = createInterface({
    input: createReadStream(file, { encoding: 'utf8' }),
    crlfDelay: Number.POSITIVE_INFINITY,
  });
  let number = 0;
  let index = 0;
  for await (const raw of lines) {
    number += 1;
    const line = raw.replace(/\r$/, '').replace(/^\uFEFF/, '');
    if (line.trim() === '') continue;
    onLine(line, `${file}:${number}`, index);
    index += 1;
  }
}

function parseJsonLine<T>(line: string, schema: z.ZodType<T>, where: string): T {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (err) {
    throw datasetError(where, `not valid JSON (${errorMessage(err)})`);
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw datasetError(where, `${issue?.path.join('.') || 'line'}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data;
}

function datasetError(where: string, message: string): RagError {
  return new RagError('ERR_DATASET', `${where}: ${message}`);
}
