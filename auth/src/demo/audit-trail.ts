import { open, stat } from 'node:fs/promises';
import { isRecord } from '@notegate/kit';

/** One audit line as read back: the six fixed fields (in the order of docs/protocol.md#audit-lines) and the raw line. */
export interface AuditEntry {
  readonly timestamp: string;
  readonly component: string;
  readonly spiffeId: string | null;
  readonly tool: string | null;
  readonly decision: string;
  readonly reason: string;
  readonly raw: string;
}

/** Where each audit file had got to: `AuditTrail.since` reads what was appended after it. */
export type AuditMark = ReadonlyMap<string, number>;

/**
 * The audit files of every component (`--audit-log`), read back in pieces: the lines written
 * between two marks belong to what ran between them. Each line is one `write` on an O_APPEND file,
 * and every writer has answered before the agent exits, so a piece never ends inside a line.
 */
export class AuditTrail {
  constructor(private readonly files: readonly string[]) {}

  async mark(): Promise<AuditMark> {
    const sizes = await Promise.all(this.files.map(async (file) => [file, await sizeOf(file)] as const));
    return new Map(sizes);
  }

  /** The lines appended since `mark`, all files merged in timestamp order. */
  async since(mark: AuditMark): Promise<AuditEntry[]> {
    const pieces = await Promise.all(this.files.map((file) => readFrom(file, mark.get(file) ?? 0)));
    const entries = pieces.flatMap((text) =>
      text
        .split('\n')
        .filter((line) => line !== '')
        .map(parseAuditLine),
    );
    // Stable: lines of one file keep their order when two timestamps are equal.
    return entries.sort((a, b) => a.timestamp.localeCompare(b.timestamp));
  }
}

/** A line that is not a well-formed audit line is kept, raw, with the component `unparsed`. */
export function parseAuditLine(raw: string): AuditEntry {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    parsed = undefined;
  }
  if (!isRecord(parsed)) return unparsed(raw);
  const { timestamp, component, spiffe_id: spiffeId, tool, decision, reason } = parsed;
  if (typeof timestamp !== 'string' || typeof component !== 'string') return unparsed(raw);
  if (typeof decision !== 'string' || typeof reason !== 'string') return unparsed(raw);
  return {
    timestamp,
    component,
    spiffeId: typeof spiffeId === 'string' ? spiffeId : null,
    tool: typeof tool === 'string' ? tool : null,
    decision,
    reason,
    raw,
  };
}

function unparsed(raw: string): AuditEntry {
  return { timestamp: '', component: 'unparsed', spiffeId: null, tool: null, decision: '', reason: raw, raw };
}

async function sizeOf(file: string): Promise<number> {
  try {
    return (await stat(file)).size;
  } catch {
    return 0;
  }
}

async function readFrom(file: string, offset: number): Promise<string> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(file, 'r');
  } catch {
    return '';
  }
  try {
    const { size } = await handle.stat();
    if (size <= offset) return '';
    const buffer = Buffer.alloc(size - offset);
    await handle.read(buffer, 0, buffer.length, offset);
    return buffer.toString('utf8');
  } finally {
    await handle.close();
  }
}
