import { hostEntry, shellWords } from '@notegate/kit';
import { proxyServerEntry } from '../proxy/host-entry.js';
import { AGENT_ID, READER_ID } from './demo-config.js';
import type { Deployment } from './deployment.js';
import type { DemoIdentity } from './identity.js';
import type { Layout } from './report.js';

/**
 * `--keep-running`: how to call the deployment by hand, as lines to copy. The agent's Workload API
 * is given once through SPIFFE_ENDPOINT_SOCKET and once with --workload-api, to show both.
 */
export function handCalls(deployment: Deployment, { style }: Layout): string {
  const { issuer, notesA, notesB, notesC, identity } = deployment;
  const agentSocket = deployment.workloadApi('agent');
  const agent = (caller: Caller, resource: string, ...rest: string[]) =>
    shellWords([
      ...notegateAs(identity, caller),
      'agent',
      '--resource',
      resource,
      '--trusted-issuer',
      issuer,
      ...(caller === 'agent' ? [] : ['--workload-api', deployment.workloadApi(caller)]),
      ...rest,
    ]);
  const asAgent = ['--workload-api', deployment.workloadApi('agent')];
  const blocks: [string, string][] = [
    [
      `as ${AGENT_ID} (SPIFFE_ENDPOINT_SOCKET names its Workload API): write a note on notes-a`,
      `SPIFFE_ENDPOINT_SOCKET=${shellWords([agentSocket])} ${agent('agent', notesA.resource, '--tool', 'notes.write', '--arguments', '{"title":"By hand","body":"Written from my shell"}')}`,
    ],
    [
      'the same with --workload-api: search notes-a',
      agent('agent', notesA.resource, ...asAgent, '--tool', 'notes.search', '--arguments', '{"query":"hand"}'),
    ],
    [
      `as ${READER_ID} (notes:read only): the tool list, then a refused write (exit 3)`,
      agent('reader', notesA.resource, '--scope', 'notes:read'),
    ],
    [
      '',
      agent(
        'reader',
        notesA.resource,
        '--scope',
        'notes:read',
        '--tool',
        'notes.write',
        '--arguments',
        '{"title":"t","body":"b"}',
      ),
    ],
    [
      'the token for notes-a replayed against notes-b (401 invalid_token)',
      agent('agent', notesA.resource, ...asAgent, '--steal-token', notesB.resource),
    ],
    ['notes-c advertises an untrusted issuer (issuer_refused, exit 3)', agent('agent', notesC.resource, ...asAgent)],
    ['every decision, as it is written', `tail -f ${shellWords([deployment.auditDir])}/*.log`],
    [
      'Prometheus metrics (text format) of authz, notes-a, notes-b and notes-c, on loopback',
      [deployment.authzMetricsUrl, notesA.metricsUrl, notesB.metricsUrl, notesC.metricsUrl]
        .map((url) => `curl -s ${url}`)
        .join('\n  '),
    ],
  ];
  const lines = blocks.flatMap(([comment, command]) => [
    ...(comment ? [style.dim(`  # ${comment}`)] : []),
    `  ${command}`,
  ]);
  // docs/demo.md: the same deployment from an MCP host, through notegate proxy as the agent.
  const proxy = proxyServerEntry(
    { resource: notesA.resource, trustedIssuers: [issuer], workloadApi: agentSocket },
    identity.handPrefix('agent'),
  );
  const entry = hostEntry('claude', proxy).json.trimEnd().split('\n');
  return (
    `\n${style.bold('The deployment stays up.')} Call it by hand from the repository folder (another terminal):\n\n` +
    `${lines.join('\n')}\n\n` +
    `${style.dim(`  # an MCP host reaches notes-a as ${AGENT_ID} through notegate proxy with this entry (Claude Code's .mcp.json,`)}\n` +
    `${style.dim("  # Cursor's mcp.json; for VS Code and Claude Desktop: notegate proxy --print-config HOST with these flags)")}\n` +
    `${entry.map((line) => `  ${line}`).join('\n')}\n\n` +
    `${style.dim('Ctrl-C stops everything and removes the temporary folder.')}\n`
  );
}

type Caller = 'agent' | 'reader';

/**
 * `npx notegate`, or, where the caller is a user of its own (SPIRE's uid layout), `setpriv … node
 * auth/bin/notegate.js`: npx would reach for the demo user's npm cache as that user.
 */
function notegateAs(identity: DemoIdentity, caller: Caller): string[] {
  const prefix = identity.handPrefix(caller);
  return prefix.length === 0 ? ['npx', 'notegate'] : [...prefix, 'node', 'auth/bin/notegate.js'];
}
