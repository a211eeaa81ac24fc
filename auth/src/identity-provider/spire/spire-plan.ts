import { Buffer } from 'node:buffer';
import { join } from 'node:path';
import type { SpireLayout } from './layout.js';
import { SpireDeploymentError } from './spire-process.js';

/** The uid layout runs workload number i (from 0) as uid and gid WORKLOAD_UID_BASE + i (docs/demo.md#how-workloads-are-told-apart). */
export const WORKLOAD_UID_BASE = 61_100;
/** Linux: a unix socket path has at most 107 bytes (sun_path holds 108 with the final NUL). */
const MAX_SOCKET_PATH_BYTES = 107;
/** Workload names become folder names of the per-agent layout. */
const WORKLOAD_NAME = /^[a-z0-9][a-z0-9-]{0,31}$/;

export interface SpireWorkloadSpec {
  /** Short name (`agent`, `authz`): the folder of its agent in the per-agent layout. */
  readonly name: string;
  readonly spiffeId: string;
  /** The entry asks for a `jti` in every JWT-SVID (`-jwtSVIDIncludeJTI`). */
  readonly includeJti?: boolean;
}

/** A registered workload: where its Workload API is, and as whom it must run to get its identity. */
export interface SpireWorkload {
  readonly name: string;
  readonly spiffeId: string;
  /** `unix:///…/api.sock`. */
  readonly workloadApi: string;
  /** The uid layout's user and group; undefined when the current user is right (per-agent layout). */
  readonly runAs: { readonly uid: number; readonly gid: number } | undefined;
}

/** A workload and its registration entry. */
export interface PlannedWorkload extends SpireWorkload {
  /** `unix:uid:<selectorUid>`. */
  readonly selectorUid: number;
  readonly includeJti: boolean;
  /** The label of its agent. */
  readonly agent: string;
}

export interface AgentPlan {
  /** `shared` in the uid layout, else the name of its one workload. */
  readonly label: string;
  /** The agent's alias (`token generate -spiffeID`), the parent ID of its workloads' entries. */
  readonly alias: string;
  readonly dir: string;
  readonly dataDir: string;
  readonly configPath: string;
  readonly tokenFile: string;
  readonly socketPath: string;
  readonly workloads: readonly string[];
}

export interface DeploymentPlan {
  readonly serverDataDir: string;
  readonly serverConfigPath: string;
  /** The admin API socket. */
  readonly serverSocket: string;
  /** The server's CA bundle, for each agent's first connection. */
  readonly bootstrapPath: string;
  readonly agents: readonly AgentPlan[];
  readonly workloads: readonly PlannedWorkload[];
}

export interface PlanInput {
  readonly dir: string;
  readonly trustDomain: string;
  readonly workloads: readonly SpireWorkloadSpec[];
  readonly layout: SpireLayout;
  /** The uid the per-agent layout's entries select: the user running the workloads. */
  readonly currentUid: number;
}

/**
 * Where everything of a local deployment goes and who is who: the uid layout has one agent and
 * a uid per workload; the per-agent layout an agent (alias, socket) per workload, all selecting the
 * current uid. Pure; refuses names that cannot be folder names and socket paths Linux cannot bind.
 */
export function planDeployment(input: PlanInput): DeploymentPlan {
  const { dir, layout, workloads } = input;
  const names = workloads.map((w) => w.name);
  for (const name of names) {
    if (!WORKLOAD_NAME.test(name)) {
      throw new SpireDeploymentError(`workload name ${JSON.stringify(name)} is not 1 to 32 of a-z, 0-9 and -`);
    }
  }
  if (new Set(names).size !== names.length) throw new SpireDeploymentError('workload names must be distinct');
  const host = `spiffe://${input.trustDomain}/host`;
  const agent = (label: string, alias: string, served: readonly string[]): AgentPlan => {
    const agentDir = join(dir, 'agents', label);
    return {
      label,
      alias,
      dir: agentDir,
      dataDir: join(agentDir, 'data'),
      configPath: join(agentDir, 'agent.conf'),
      tokenFile: join(agentDir, 'join-token'),
      socketPath: join(agentDir, 'public', 'api.sock'),
      workloads: served,
    };
  };
  const shared = agent('shared', host, names);
  const planned = workloads.map((w, index) => {
    const served = layout === 'uid' ? shared : agent(w.name, `${host}/${w.name}`, [w.name]);
    const uid = WORKLOAD_UID_BASE + index;
    const workload: PlannedWorkload = {
      name: w.name,
      spiffeId: w.spiffeId,
      workloadApi: `unix://${served.socketPath}`,
      runAs: layout === 'uid' ? { uid, gid: uid } : undefined,
      selectorUid: layout === 'uid' ? uid : input.currentUid,
      includeJti: w.includeJti === true,
      agent: served.label,
    };
    return { served, workload };
  });
  const agents = layout === 'uid' ? [shared] : planned.map(({ served }) => served);
  const plan: DeploymentPlan = {
    serverDataDir: join(dir, 'server', 'data'),
    serverConfigPath: join(dir, 'server', 'server.conf'),
    serverSocket: join(dir, 'server', 'private', 'api.sock'),
    bootstrapPath: join(dir, 'bootstrap.pem'),
    agents,
    workloads: planned.map(({ workload }) => workload),
  };
  for (const socket of [plan.serverSocket, ...agents.map((a) => a.socketPath)]) {
    if (Buffer.byteLength(socket) > MAX_SOCKET_PATH_BYTES) {
      throw new SpireDeploymentError(
        `the socket path ${socket} is longer than ${MAX_SOCKET_PATH_BYTES} bytes: use a shorter folder (TMPDIR)`,
      );
    }
  }
  return plan;
}
