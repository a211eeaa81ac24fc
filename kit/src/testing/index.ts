/** Helpers for the tests of every notegate package (`@notegate/kit/testing`); never used by a program. */
export { dripBody, dripHeaders, getAndClose, holdConnection, type RawReply, sendNothing } from './bounded-clients.js';
export { capturedIo } from './captured-io.js';
export { type Finished, runInGroup, spawnNode } from './child-processes.js';
export { assertOptionsDocumented, unwrapHelp } from './help-output.js';
export { mcpInspectorCli } from './mcp-inspector.js';
export { descendants, killGroups, type Registrar, runningInGroup, spawnInGroup } from './process-groups.js';
export { seededRandom } from './seeded-random.js';
export { tempDir } from './temp-dir.js';
export { waitFor } from './wait-for.js';
