import { exitSummary, failureLine } from '../agent-output.js';
import type { Scenario } from '../scenario.js';

/**
 * Scenario 4: notes-c advertises an authorization server that is not on the agent's allowlist. The
 * agent must refuse before it sends that server anything and before it fetches an SVID: the
 * untrusted listener counts the requests it receives, the identity source the SVIDs it hands out.
 */
export const untrustedIssuer: Scenario = {
  title: 'Untrusted issuer',
  expected:
    "notes-c advertises an authorization server that is not on the agent's --trusted-issuer allowlist. The " +
    'agent refuses with issuer_refused before any request reaches that server and before any SVID is fetched.',
  async run({ deployment, agent, auditSoFar }) {
    const mintedBefore = deployment.svids.count;
    const run = await agent('agent', deployment.notesC.resource, [
      '--tool',
      'notes.search',
      '--arguments',
      JSON.stringify({ query: 'anything' }),
    ]);
    const mintedAfter = deployment.svids.count;
    const received = deployment.untrusted.requests.length;
    const audited = (await auditSoFar()).some(
      (entry) => entry.component === 'agent' && entry.decision === 'deny' && entry.reason.startsWith('issuer_refused'),
    );
    return {
      steps: [
        {
          title: `agent → notes-c  (advertises ${deployment.untrusted.issuer})`,
          run,
          happened: [
            exitSummary(run),
            `untrusted issuer: ${received} request${received === 1 ? '' : 's'} received`,
            `${deployment.svids.label}: ${mintedBefore} before this run, ${mintedAfter} after`,
          ],
        },
      ],
      checks: [
        {
          label: 'refused with issuer_refused',
          pass: run.code === 3 && (failureLine(run) ?? '').startsWith('issuer_selection: issuer_refused: '),
        },
        { label: 'no request reached the untrusted issuer (count 0)', pass: received === 0 },
        {
          // A count of 0 before would mean the count is not being read at all: then it proves nothing.
          label: 'no JWT-SVID was fetched (the count did not move)',
          pass: mintedBefore > 0 && mintedAfter === mintedBefore,
        },
        { label: 'the agent audited the refusal (deny, issuer_refused)', pass: audited },
      ],
    };
  },
};
