import { exitSummary, failureLine, toolNames } from '../agent-output.js';
import { READER_ID } from '../demo-config.js';
import type { Scenario } from '../scenario.js';
import { NOTE } from './allowed.js';

/**
 * Scenario 2: an identity granted only notes:read. It asks for the scope it holds — asking for
 * notes:write would already be refused by authz (400 invalid_scope) — and the notes server hides
 * notes.write from its tool list and refuses the call with 403 insufficient_scope.
 */
export const insufficientScope: Scenario = {
  title: 'Insufficient scope',
  expected:
    `${READER_ID} (granted only notes:read on notes-a) lists the tools: notes.write is not among them. ` +
    'Calling notes.write anyway with its notes:read token gets 403 insufficient_scope.',
  async run({ deployment, agent, auditSoFar }) {
    const resource = deployment.notesA.resource;
    const readOnly = ['--scope', 'notes:read'];
    const list = await agent('reader', resource, readOnly);
    const names = toolNames(list);
    const write = await agent('reader', resource, [
      ...readOnly,
      '--tool',
      'notes.write',
      '--arguments',
      JSON.stringify(NOTE),
    ]);
    const failure = failureLine(write) ?? '';
    const denied = (await auditSoFar()).some(
      (entry) =>
        entry.component === 'mcp_server:notes-a' &&
        entry.decision === 'deny' &&
        entry.tool === 'notes.write' &&
        entry.reason.startsWith('insufficient_scope'),
    );
    return {
      steps: [
        {
          title: 'reader → notes-a  tools/list (scope notes:read)',
          run: list,
          happened: [exitSummary(list), `tools: ${names.join(', ') || '(none)'}`],
        },
        { title: 'reader → notes-a  notes.write (scope notes:read)', run: write, happened: [exitSummary(write)] },
      ],
      checks: [
        {
          label: 'tools/list shows the notes:read tools (notes.read, notes.search) and not notes.write',
          pass: list.code === 0 && names.join(' ') === 'notes.read notes.search',
        },
        {
          label: 'notes.write refused: HTTP 403 insufficient_scope, challenge names notes:write',
          pass:
            write.code === 3 &&
            /^mcp_call: insufficient_scope: HTTP 403 /.test(failure) &&
            /error="insufficient_scope"/.test(failure) &&
            /scope="notes:write"/.test(failure),
        },
        { label: 'notes-a audited the refusal (deny, insufficient_scope, notes.write)', pass: denied },
      ],
    };
  },
};
