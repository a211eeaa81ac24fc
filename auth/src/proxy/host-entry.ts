import { fileURLToPath } from 'node:url';
import type { StdioServerEntry } from '@notegate/kit';

/** The committed entry point of this package, which a host runs (docs/protocol.md#proxy). */
const NOTEGATE_BIN = fileURLToPath(new URL('../../../bin/notegate.js', import.meta.url));

/** What a proxy relays to, and how it gets its token: the flags it is started with. */
export interface ProxyTarget {
  readonly resource: string;
  readonly trustedIssuers: readonly string[];
  /** The Workload API, written out: a host does not start the proxy with the user's environment. */
  readonly workloadApi: string;
  readonly scope?: string | undefined;
  /** Seconds, when not the default. */
  readonly timeoutS?: number | undefined;
  /** An absolute path, when the audit lines go to a file rather than the host's log of stderr. */
  readonly auditLog?: string | undefined;
}

/**
 * `notegate proxy` as an MCP host starts it (docs/protocol.md#proxy): this Node.js and this package's entry
 * point by absolute path, every flag explicit. `prefix` runs it as another user where the identity source
 * attests by user (the demo on SPIRE's uid layout).
 */
export function proxyServerEntry(target: ProxyTarget, prefix: readonly string[] = []): StdioServerEntry {
  const proxyArgs = [
    NOTEGATE_BIN,
    'proxy',
    '--resource',
    target.resource,
    ...target.trustedIssuers.flatMap((issuer) => ['--trusted-issuer', issuer]),
    '--workload-api',
    target.workloadApi,
    ...(target.scope === undefined ? [] : ['--scope', target.scope]),
    ...(target.timeoutS === undefined ? [] : ['--timeout', String(target.timeoutS)]),
    ...(target.auditLog === undefined ? [] : ['--audit-log', target.auditLog]),
  ];
  const [command, ...args] = [...prefix, process.execPath, ...proxyArgs];
  return { name: 'notes', command: command ?? process.execPath, args };
}
