import { chmod, chown, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ReachTarget, SpireLayout } from '../identity-provider/spire/layout.js';
import type { SpireBinaries } from '../identity-provider/spire/spire-binaries.js';
import { SPIRE_VERSION } from '../identity-provider/spire/spire-binaries.js';
import { SpireDeployment } from '../identity-provider/spire/spire-deployment.js';
import type { ChildProcesses } from '../shared/child-processes.js';
import type { WorkloadName } from './demo-config.js';
import { DEMO_WORKLOADS, TRUST_DOMAIN } from './demo-config.js';
import type { DemoIdentity } from './identity.js';
import { NOTEGATE_MAIN } from './notegate-child.js';

/**
 * SPIRE 1.15.3 on this machine (docs/demo.md#spire-on-this-machine): a server, its agent(s), one
 * registration entry per workload. The agent caches JWT-SVIDs and hands the same one out for about
 * half its lifetime, so authz runs `--svid-replay allow-reuse-within-lifetime`. `folder` holds
 * SPIRE's files and whatever the workloads open; in the uid layout other users may enter it (0711)
 * but list nothing, and each of their files is theirs alone (0600).
 */
export async function startSpireIdentity(
  children: ChildProcesses,
  folder: string,
  binaries: SpireBinaries,
  layout: SpireLayout,
): Promise<DemoIdentity> {
  await chmod(folder, layout === 'uid' ? 0o711 : 0o700);
  const dir = join(folder, 'spire');
  await mkdir(dir);
  const spire = await SpireDeployment.start({
    binaries,
    children,
    dir,
    trustDomain: TRUST_DOMAIN,
    workloads: DEMO_WORKLOADS,
    layout,
  });
  const workload = (name: WorkloadName) => spire.workload(name);
  const socket = workload('agent').workloadApi;
  const agentRow: readonly [string, string, string] =
    layout === 'uid'
      ? [
          'SPIRE agent',
          socket,
          `one for all: ${DEMO_WORKLOADS.map(({ name }) => `${name} uid ${workload(name).runAs?.uid}`).join(', ')}`,
        ]
      : [
          'SPIRE agents',
          // unix://<dir>/agents/<name>/public/api.sock
          socket.replace(/\/agents\/[^/]+\//, '/agents/<name>/'),
          `one per workload (${DEMO_WORKLOADS.map(({ name }) => name).join(', ')}), a socket each`,
        ];
  return {
    rows: [
      [
        `SPIRE ${SPIRE_VERSION}`,
        `server ${spire.serverAddress}`,
        `trust domain ${TRUST_DOMAIN}, join-token agents, unix workload attestor`,
      ],
      agentRow,
    ],
    replayMode: 'allow-reuse-within-lifetime',
    svids: {
      get count() {
        return spire.jwtSvidsServed;
      },
      label: 'SPIRE agent, JWT-SVIDs handed out',
    },
    workloadDir: folder,
    daemons: spire.daemons,
    workloadApi: (name) => workload(name).workloadApi,
    runAs: (name) => workload(name).runAs ?? {},
    prepareFile: async (path, name, content = '') => {
      // A new file each time (never one planted at the path), then handed to the workload's user.
      await rm(path, { force: true });
      await writeFile(path, content, { mode: 0o600, flag: 'wx' });
      const runAs = workload(name).runAs;
      if (runAs) await chown(path, runAs.uid, runAs.gid);
    },
    handPrefix: (name) => {
      const runAs = workload(name).runAs;
      return runAs ? ['setpriv', `--reuid=${runAs.uid}`, `--regid=${runAs.gid}`, '--clear-groups', '--'] : [];
    },
  };
}

/**
 * What the workloads of the uid layout need to reach as other users: node and this program (authz
 * and the agent runs), spire-agent (the readiness probe), and the temporary folder the demo's
 * folders are made in.
 */
export function spireLayoutTargets(binaries: SpireBinaries, tempFolder = tmpdir()): ReachTarget[] {
  return [
    { path: process.execPath, need: 'execute' },
    { path: NOTEGATE_MAIN, need: 'read' },
    { path: binaries.agent, need: 'execute' },
    { path: tempFolder, need: 'search' },
  ];
}
