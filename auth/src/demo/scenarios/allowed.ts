import { isRecord } from '@notegate/kit';
import { exitSummary, structuredContent } from '../agent-output.js';
import { AGENT_ID } from '../demo-config.js';
import type { Scenario } from '../scenario.js';

export const NOTE = {
  title: 'Signing key rotation drill',
  body: 'Written by the demo agent with notes.write: rotate the signing keys of authz every quarter, then check that every notes server fetched the new key set.',
};
export const SEARCH = { query: 'rotate the signing keys', top: 5 };
/** The handbook note the search must find: the answer grounded in the demo vault (docs/demo.md). */
const HANDBOOK_NOTE = { vault: 'handbook', path: 'engineering/key-rotation.md' };

interface Hit {
  readonly vault: string;
  readonly path: string;
  readonly line_start: number;
  readonly line_end: number;
  readonly snippet: string;
}

/** Scenario 1: the agent holds notes:read and notes:write on notes-a; it writes a note, then searches the vaults. */
export const allowed: Scenario = {
  title: 'Allowed',
  expected:
    `${AGENT_ID} (granted notes:read notes:write on notes-a) writes a note with notes.write, then searches ` +
    "notes-a's vaults (the demo handbook and its own notes) with notes.search: grounded hits with file, lines and " +
    'snippet, the note just written among them. Each call fetches an SVID for authz only and gets a token for notes-a only.',
  async run({ deployment, agent }) {
    const resource = deployment.notesA.resource;
    const write = await agent('agent', resource, ['--tool', 'notes.write', '--arguments', JSON.stringify(NOTE)]);
    const written = structuredContent(write);
    const path = typeof written.path === 'string' ? written.path : undefined;
    const search = await agent('agent', resource, ['--tool', 'notes.search', '--arguments', JSON.stringify(SEARCH)]);
    const hits = hitsOf(structuredContent(search).hits);
    const found = hits.some((hit) => hit.vault === written.vault && hit.path === path);
    const grounded = hits.some((hit) => hit.vault === HANDBOOK_NOTE.vault && hit.path === HANDBOOK_NOTE.path);
    return {
      steps: [
        {
          title: `agent → notes-a  notes.write ${JSON.stringify({ title: NOTE.title })}`,
          run: write,
          happened: [
            exitSummary(write),
            path
              ? `wrote ${String(written.vault)}/${path} (indexed: ${String(written.indexed)})`
              : 'no path in the answer',
          ],
        },
        {
          title: `agent → notes-a  notes.search ${JSON.stringify(SEARCH)}`,
          run: search,
          happened: [
            `${exitSummary(search)}: ${hits.length} hit${hits.length === 1 ? '' : 's'}`,
            ...hits.map((hit) => `${hit.vault}/${hit.path}:${hit.line_start}-${hit.line_end}  ${hit.snippet}`),
          ],
        },
      ],
      checks: [
        { label: 'notes.write succeeded and created the note', pass: write.code === 0 && written.created === true },
        {
          label: `notes.search found the handbook's ${HANDBOOK_NOTE.path}, with its lines`,
          pass: search.code === 0 && grounded,
        },
        { label: 'notes.search found the note just written', pass: search.code === 0 && found },
      ],
    };
  },
};

function hitsOf(value: unknown): Hit[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((hit: unknown) =>
    isRecord(hit) &&
    typeof hit.vault === 'string' &&
    typeof hit.path === 'string' &&
    typeof hit.line_start === 'number' &&
    typeof hit.line_end === 'number' &&
    typeof hit.snippet === 'string'
      ? [{ vault: hit.vault, path: hit.path, line_start: hit.line_start, line_end: hit.line_end, snippet: hit.snippet }]
      : [],
  );
}
