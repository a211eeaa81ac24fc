import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ChildProcesses } from '../shared/child-processes.js';
import { listeningUrl, START_TIMEOUT_MS, untilOutput } from './child-readiness.js';
import type { WorkloadName } from './demo-config.js';
import { workloadsYaml } from './demo-config.js';
import type { DemoIdentity } from './identity.js';
import { startNotegate } from './notegate-child.js';
import { SvidCount } from './svid-count.js';

/**
 * The development identity provider (agent, reader and authz sockets in `dir/sockets`). It signs a
 * fresh SVID with a new jti on every fetch, so authz runs `--svid-replay reject`, the default.
 */
export async function startDevelopmentIdentity(children: ChildProcesses, dir: string): Promise<DemoIdentity> {
  const socketDir = join(dir, 'sockets');
  const workloadsFile = join(dir, 'workloads.yaml');
  await writeFile(workloadsFile, workloadsYaml(), { mode: 0o600 });
  const provider = startNotegate(children, 'identity-provider', [
    'identity-provider',
    '--workloads',
    workloadsFile,
    '--socket-dir',
    socketDir,
    '--log-svids',
  ]);
  const svids = new SvidCount(provider);
  await untilOutput(provider, 'its listening line', listeningUrl, START_TIMEOUT_MS);
  return {
    rows: [['identity provider', `unix://${socketDir}`, 'sockets for agent, reader, authz']],
    replayMode: 'reject',
    svids,
    workloadDir: dir,
    daemons: [provider],
    workloadApi: (name: WorkloadName) => `unix://${join(socketDir, `${name}.sock`)}`,
    runAs: () => ({}),
    prepareFile: async (path, _name, content) => {
      if (content !== undefined) await writeFile(path, content, { mode: 0o600 });
    },
    handPrefix: () => [],
  };
}
