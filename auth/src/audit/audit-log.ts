import { closeSync, writeSync } from 'node:fs';
import { errorMessage, terminalJson } from '@notegate/kit';
import { clip } from '../shared/clip.js';
import type { Clock } from '../shared/clock.js';
import { systemClock } from '../shared/clock.js';
import { openAuditFile } from './audit-file.js';

export type Decision = 'allow' | 'deny';

export interface AuditEvent {
  /** `authz` or `mcp_server:<name>` (or `agent`, `stdio_wrapper`). */
  readonly component: string;
  /** Verified SPIFFE ID, `unverified:<id>` before the signature check, or null. */
  readonly spiffeId: string | null;
  /** Tool name for tools/call, otherwise null. */
  readonly tool: string | null;
  readonly decision: Decision;
  /** Protocol code, fixed description and audit-only detail. */
  readonly reason: string;
  /** Extra fields, written after the six fixed ones (for example `svid_jti`). */
  readonly extra?: Readonly<Record<string, unknown>>;
}

/** Receives one complete line (with its newline); must write it in one call. */
export type AuditSink = (line: string) => void;

/**
 * One JSON line per allow/deny decision, fields in the order docs/protocol.md#audit-lines fixes.
 * A sink failure is reported on stderr and never propagates: auditing must not
 * take the server down.
 */
export class AuditLog {
  readonly #sink: AuditSink;
  readonly #clock: Clock;
  readonly #onSinkError: (err: unknown) => void;

  constructor(sink: AuditSink, options: { clock?: Clock; onSinkError?: (err: unknown) => void } = {}) {
    this.#sink = sink;
    this.#clock = options.clock ?? systemClock;
    this.#onSinkError = options.onSinkError ?? reportSinkError;
  }

  record(event: AuditEvent): void {
    const line = formatAuditLine(event, this.#clock());
    try {
      this.#sink(line);
    } catch (err) {
      this.#onSinkError(err);
    }
  }
}

const FIXED_FIELDS: ReadonlySet<string> = new Set([
  'timestamp',
  'component',
  'spiffe_id',
  'tool',
  'decision',
  'reason',
]);

/** Built field by field (no intermediate entry arrays): this runs once per token request. */
function formatAuditLine(event: AuditEvent, nowMs: number): string {
  const line: Record<string, unknown> = {
    timestamp: new Date(nowMs).toISOString(),
    component: event.component,
    spiffe_id: event.spiffeId,
    tool: event.tool,
    decision: event.decision,
    reason: event.reason,
  };
  const { extra } = event;
  if (extra !== undefined) {
    for (const key of Object.keys(extra)) if (!FIXED_FIELDS.has(key)) line[key] = extra[key];
  }
  // Client-chosen text reaches whoever reads the log on a terminal (docs/security.md#operators-terminals).
  return `${terminalJson(line)}\n`;
}

/** `unverified:<sub>` for decisions taken before the signature was checked; the sub is the client's, so clipped. */
export function unverifiedSpiffeId(sub: unknown): string | null {
  return typeof sub === 'string' && sub.length > 0 ? `unverified:${clip(sub)}` : null;
}

function stderrSink(): AuditSink {
  return (line) => {
    process.stderr.write(line);
  };
}

/**
 * Appends to `path` (O_APPEND), one write(2) per line so concurrent writers never interleave. Opened
 * eagerly, owner-only and never through a symbolic link (openAuditFile), so a bad path is a start-up error.
 */
export function fileSink(path: string): { sink: AuditSink; close: () => void } {
  const fd = openAuditFile(path);
  return {
    sink: (line) => {
      writeSync(fd, line);
    },
    close: () => closeSync(fd),
  };
}

/** A component's audit log (docs/protocol.md#audit-lines): the `--audit-log` file, else stderr. */
export function openAuditLog(path: string | undefined): { audit: AuditLog; close: () => void } {
  if (path === undefined) return { audit: new AuditLog(stderrSink()), close: () => undefined };
  const file = fileSink(path);
  return { audit: new AuditLog(file.sink), close: file.close };
}

function reportSinkError(err: unknown): void {
  const message = errorMessage(err);
  process.stderr.write(`notegate: audit write failed: ${message}\n`);
}
