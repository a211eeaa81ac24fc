import { isRecord } from '@notegate/kit';
import { exitSummary, structuredContent } from '../agent-output.js';
import { AGENT_ID } from '../demo-config.js';
import type { Scenario } from '../scenario.js';

export const NOTE = { title: 'Rotate the signing keys', body: 'Written by the demo agent with notes.write.' };
export const SEARCH = { query: 'signing keys' };

/** Scenario 1: the agent holds notes:read and notes:write on notes-a; it writes a note and finds it. */
export const allowed: Scenario = {
  title: 'Allowed',
  expected:
    `${AGENT_ID} (granted notes:read notes:write on notes-a) writes a note with notes.write, ` +
    'then finds it with notes.search: each call gets its own SVID and a token for notes-a only.',
  async run({ deployment, agent }) {
    const resource = deployment.notesA.resource;
    const write = await agent('agent', resource, ['--tool', 'notes.write', '--arguments', JSON.stringify(NOTE)]);
    const written = structuredContent(write);
    const id = typeof written.id === 'string' ? written.id : undefined;
    const search = await agent('agent', resource, ['--tool', 'notes.search', '--arguments', JSON.stringify(SEARCH)]);
    const results = structuredContent(search).results;
    const hits = Array.isArray(results) ? results.length : 0;
    const found = Array.isArray(results) && results.some((hit: unknown) => isRecord(hit) && hit.id === id);
    return {
      steps: [
        {
          title: `agent → notes-a  notes.write ${JSON.stringify({ title: NOTE.title })}`,
          run: write,
          happened: [exitSummary(write), id ? `created note ${id}` : 'no note id in the answer'],
        },
        {
          title: `agent → notes-a  notes.search ${JSON.stringify(SEARCH)}`,
          run: search,
          happened: [exitSummary(search), `${hits} result${hits === 1 ? '' : 's'}${found ? `, including ${id}` : ''}`],
        },
      ],
      checks: [
        { label: 'notes.write succeeded and created the note', pass: write.code === 0 && written.created === true },
        { label: 'notes.search found the note just written', pass: search.code === 0 && found },
      ],
    };
  },
};
