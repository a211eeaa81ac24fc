/**
 * A refusal that crosses the wire. It carries everything the HTTP layer needs
 * (status, protocol code, fixed client-facing description) plus an audit-only
 * detail that must never reach the client.
 */
export interface ProtocolErrorSpec {
  /** Protocol error code (OAuth / RFC 6750), or null for a bare challenge. */
  readonly protocolCode: string | null;
  readonly status: number;
  /** Fixed text shown to clients (RFC 6749 §5.2 charset: no `"` or `\`). */
  readonly description: string;
  /** Audit-only code that replaces `protocolCode` at the head of the audit reason (for example `jwks_unavailable`). */
  readonly auditCode?: string;
}

export class ProtocolError<
  Code extends string = string,
  Spec extends ProtocolErrorSpec = ProtocolErrorSpec,
> extends Error {
  readonly code: Code;
  /** The registry row this error was made from (also tells which registry: see isErrorOf). */
  readonly spec: Spec;
  /** Audit-only explanation; never serialized to a client. */
  readonly detail: string;

  constructor(code: Code, spec: Spec, detail: string) {
    super(`${code}: ${detail}`);
    this.name = 'ProtocolError';
    this.code = code;
    this.spec = spec;
    this.detail = detail;
  }

  get protocolCode(): string | null {
    return this.spec.protocolCode;
  }

  get status(): number {
    return this.spec.status;
  }

  get description(): string {
    return this.spec.description;
  }

  get auditCode(): string | null {
    return this.spec.auditCode ?? null;
  }

  /** The registry code as a metrics label: `ERR_SVID_REPLAYED` → `svid_replayed` (docs/protocol.md#metrics). */
  get reasonCode(): string {
    return this.code.replace(/^ERR_/, '').toLowerCase();
  }

  /** The audit `reason`: protocol code, fixed description, then the detail. */
  auditReason(): string {
    const head = this.auditCode ?? this.protocolCode ?? `http_${this.status}`;
    return `${head}: ${this.description}${this.detail ? ` (${this.detail})` : ''}`;
  }
}

/** Builds a typed factory over one registry table: `fail('ERR_X', 'detail')`. */
export function errorFactory<Table extends Record<string, ProtocolErrorSpec>>(table: Table) {
  return (code: keyof Table & string, detail = ''): ProtocolError<keyof Table & string, Table[keyof Table]> =>
    new ProtocolError(code, table[code] as Table[keyof Table], detail);
}

/** Whether `err` was made from this registry: its own row, not merely a code of the same name elsewhere. */
export function isErrorOf<Table extends Record<string, ProtocolErrorSpec>>(
  table: Table,
  err: unknown,
): err is ProtocolError<keyof Table & string, Table[keyof Table]> {
  return err instanceof ProtocolError && Object.hasOwn(table, err.code) && table[err.code] === err.spec;
}
