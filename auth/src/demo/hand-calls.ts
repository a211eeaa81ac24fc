import { AGENT_ID, READER_ID } from './demo-config.js';
import type { Deployment } from './deployment.js';
import type { Layout } from './report.js';
import { shellWords } from './shell-words.js';

/**
 * `--keep-running`: how to call the deployment by hand, as lines to copy. The agent's Workload API
 * is given once through SPIFFE_ENDPOINT_SOCKET and once with --workload-api, to show both.
 */
export function handCalls(deployment: Deployment, { style }: Layout): string {
  const { issuer, notesA, notesB, notesC } = deployment;
  const agentSocket = deployment.workloadApi('agent');
  const agent = (resource: string, ...rest: string[]) =>
    shellWords(['npx', 'notegate', 'agent', '--resource', resource, '--trusted-issuer', issuer, ...rest]);
  const as = (name: 'agent' | 'reader') => ['--workload-api', deployment.workloadApi(name)];
  const blocks: [string, string][] = [
    [
      `as ${AGENT_ID} (SPIFFE_ENDPOINT_SOCKET names its Workload API): write a note on notes-a`,
      `SPIFFE_ENDPOINT_SOCKET=${shellWords([agentSocket])} ${agent(notesA.resource, '--tool', 'notes.write', '--arguments', '{"title":"By hand","body":"Written from my shell"}')}`,
    ],
    [
      'the same with --workload-api: search notes-a',
      agent(notesA.resource, ...as('agent'), '--tool', 'notes.search', '--arguments', '{"query":"hand"}'),
    ],
    [
      `as ${READER_ID} (notes:read only): the tool list, then a refused write (exit 3)`,
      agent(notesA.resource, ...as('reader'), '--scope', 'notes:read'),
    ],
    [
      '',
      agent(
        notesA.resource,
        ...as('reader'),
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
      agent(notesA.resource, ...as('agent'), '--steal-token', notesB.resource),
    ],
    ['notes-c advertises an untrusted issuer (issuer_refused, exit 3)', agent(notesC.resource, ...as('agent'))],
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
  return (
    `\n${style.bold('The deployment stays up.')} Call it by hand from the repository folder (another terminal):\n\n` +
    `${lines.join('\n')}\n\n${style.dim('Ctrl-C stops everything and removes the temporary folder.')}\n`
  );
}
