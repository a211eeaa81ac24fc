import { isRecord } from '@notegate/kit';
import { exitSummary, stdoutObjects } from '../agent-output.js';
import type { Scenario } from '../scenario.js';
import { SEARCH } from './allowed.js';

/** Scenario 3: the token minted for notes-a is presented to notes-b, which trusts the same issuer. */
export const stolenToken: Scenario = {
  title: 'Stolen token',
  expected:
    'The agent calls notes-a, then replays the very same token against notes-b (--steal-token). notes-b trusts ' +
    'the same authz and the signature is valid, but the token is not for it: 401 invalid_token (audience).',
  async run({ deployment, agent, auditSoFar }) {
    const run = await agent('agent', deployment.notesA.resource, [
      '--tool',
      'notes.search',
      '--arguments',
      JSON.stringify(SEARCH),
      '--steal-token',
      deployment.notesB.resource,
    ]);
    const [result, report] = stdoutObjects(run);
    const replay = isRecord(report) ? report : {};
    const ownCall =
      isRecord(result) && isRecord(result.structuredContent) && Array.isArray(result.structuredContent.hits);
    const challenge = typeof replay.www_authenticate === 'string' ? replay.www_authenticate : '(none)';
    const audienceDeny = (await auditSoFar()).some(
      (entry) =>
        entry.component === 'mcp_server:notes-b' &&
        entry.decision === 'deny' &&
        entry.reason.startsWith('invalid_token') &&
        /\baud\b/.test(entry.reason),
    );
    return {
      steps: [
        {
          title: 'agent → notes-a  notes.search, then the same token → notes-b',
          run,
          happened: [
            exitSummary(run),
            `notes-b answered ${String(replay.status ?? '?')}; WWW-Authenticate: ${challenge}`,
          ],
        },
      ],
      checks: [
        {
          label: "the agent's own call to notes-a succeeded",
          pass: ownCall,
        },
        {
          label: 'notes-b refused the replayed token: 401 invalid_token',
          pass:
            run.code === 0 && replay.status === 401 && replay.error === 'invalid_token' && replay.accepted === false,
        },
        { label: "notes-b's deny line names the audience mismatch", pass: audienceDeny },
      ],
    };
  },
};
