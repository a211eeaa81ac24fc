import { Buffer } from 'node:buffer';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isRecord } from '@notegate/kit';
import { reservePort } from '@notegate/kit/http';
import type { ChildProcesses, RunningChild } from '../../shared/child-processes.js';
import type { SpireLayout } from './layout.js';
import type { SpireBinaries } from './spire-binaries.js';
import type { SpireJwtKeyType } from './spire-config.js';
import { agentConfig, serverConfig } from './spire-config.js';
import { commandOutput, logOf, runCommand, SpireDeploymentError, tail, waitUntil } from './spire-process.js';

/** The uid layout runs workload number i (from 0) as uid and gid WORKLOAD_UID_BASE + i (docs/demo.md#spire-on-this-machine). */
export const WORKLOAD_UID_BASE = 61_100;
/** Linux: a unix socket path has at most 107 bytes (sun_path holds 108 with the final NUL). */
const MAX_SOCKET_PATH_BYTES = 107;
/** Ours: a hang detector for each readiness wait, far above the seconds they take on a busy machine. */
const READY_TIMEOUT_MS = 60_000;
/** SPIRE's own default JWT-SVID lifetime, and the most `notegate authz` accepts. */
const DEFAULT_JWT_SVID_TTL_S = 300;
/** Ours: a reserved port someone else took before the server bound it: try again with another. */
const SERVER_START_ATTEMPTS = 3;
/** Ours: a join token only has to last until its agent has attested, seconds after it is made. */
const JOIN_TOKEN_TTL_S = 600;
/** Workload names become folder names of the per-agent layout. */
const WORKLOAD_NAME = /^[a-z0-9][a-z0-9-]{0,31}$/;

export interface SpireWorkloadSpec {
  /** Short name (`agent`, `authz`): the folder of its agent in the per-agent layout. */
  readonly name: string;
  readonly spiffeId: string;
  /** The entry asks for a `jti` in every JWT-SVID (`-jwtSVIDIncludeJTI`). */
  readonly includeJti?: boolean;
}

export interface SpireDeploymentOptions {
  readonly binaries: SpireBinaries;
  /** Every process (daemons and CLI calls) is started here, so stopping it stops them all. */
  readonly children: ChildProcesses;
  /** An empty folder the deployment may fill; keep its path short (unix socket paths). */
  readonly dir: string;
  readonly trustDomain: string;
  readonly workloads: readonly SpireWorkloadSpec[];
  readonly layout: SpireLayout;
  /** Lifetime of every workload's JWT-SVIDs (default 300 s). */
  readonly jwtSvidTtlS?: number;
  readonly jwtKeyType?: SpireJwtKeyType;
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

interface AgentPlan {
  /** `shared` in the uid layout, else the name of its one workload. */
  readonly label: string;
  /** The agent's alias, the parent ID of its workloads' entries. */
  readonly alias: string;
  readonly configPath: string;
  readonly socketPath: string;
  readonly workloads: readonly string[];
  child: RunningChild | undefined;
}

/**
 * A SPIRE 1.15.3 server and its agents on this machine, without containers, in `dir`, on a free
 * loopback port (docs/demo.md#spire-on-this-machine): join-token node attestation, the `unix`
 * workload attestor, one registration entry per workload. `start` returns once every workload can
 * really fetch its SVID through its agent; `close` stops every process it started.
 */
export class SpireDeployment {
  readonly options: SpireDeploymentOptions;
  readonly serverSocket: string;
  readonly #workloads: ReadonlyMap<string, SpireWorkload>;
  readonly #agents: ReadonlyMap<string, AgentPlan>;
  #server: RunningChild | undefined;
  #serverPort = 0;
  #jwtSvidsServed = 0;

  private constructor(options: SpireDeploymentOptions) {
    this.options = options;
    const { dir, workloads, layout } = options;
    this.serverSocket = join(dir, 'server', 'private', 'api.sock');
    const trustDomainId = `spiffe://${options.trustDomain}`;
    const agents = new Map<string, AgentPlan>();
    const planAgent = (label: string, alias: string, names: readonly string[]) => {
      const agentDir = join(dir, 'agents', label);
      agents.set(label, {
        label,
        alias,
        configPath: join(agentDir, 'agent.conf'),
        socketPath: join(agentDir, 'public', 'api.sock'),
        workloads: names,
        child: undefined,
      });
    };
    if (layout === 'uid') {
      planAgent(
        'shared',
        `${trustDomainId}/host`,
        workloads.map((w) => w.name),
      );
    } else {
      for (const w of workloads) planAgent(w.name, `${trustDomainId}/host/${w.name}`, [w.name]);
    }
    this.#agents = agents;
    this.#workloads = new Map(
      workloads.map((w, index) => {
        const agent = this.#agentOf(w.name);
        const runAs = layout === 'uid' ? { uid: WORKLOAD_UID_BASE + index, gid: WORKLOAD_UID_BASE + index } : undefined;
        return [w.name, { name: w.name, spiffeId: w.spiffeId, workloadApi: `unix://${agent.socketPath}`, runAs }];
      }),
    );
  }

  /** Starts the server, registers the workloads, starts the agents, and waits until every workload has its identity. */
  static async start(options: SpireDeploymentOptions): Promise<SpireDeployment> {
    const deployment = new SpireDeployment(options);
    deployment.#check();
    try {
      await deployment.#start();
    } catch (err) {
      await deployment.close();
      throw err;
    }
    return deployment;
  }

  /** The workload named `name` (one of the options' workloads). */
  workload(name: string): SpireWorkload {
    const workload = this.#workloads.get(name);
    if (!workload) throw new Error(`no SPIRE workload named ${name}`);
    return workload;
  }

  get workloads(): readonly SpireWorkload[] {
    return [...this.#workloads.values()];
  }

  /** `127.0.0.1:<port>`: where the agents reach the server. */
  get serverAddress(): string {
    return `127.0.0.1:${this.#serverPort}`;
  }

  /** How many agents run: one, or one per workload. */
  get agentCount(): number {
    return this.#agents.size;
  }

  /** JWT-SVIDs the agents have handed to workloads so far (cached ones included), from their logs. */
  get jwtSvidsServed(): number {
    return this.#jwtSvidsServed;
  }

  /** The daemons running now (server and agents), for a caller that reports crashes. */
  get daemons(): readonly RunningChild[] {
    return [this.#server, ...[...this.#agents.values()].map((agent) => agent.child)].filter(
      (child): child is RunningChild => child !== undefined && child.endedWith === undefined,
    );
  }

  /** `spire-server <args> -socketPath <admin socket>`; resolves with its stdout, fails on a non-zero exit. */
  serverCommand(args: readonly string[]): Promise<string> {
    const { children, binaries } = this.options;
    return commandOutput(children, `spire-server ${args.slice(0, 2).join(' ')}`, binaries.server, [
      ...args,
      '-socketPath',
      this.serverSocket,
    ]);
  }

  /** Stops the agent that serves `workloadName` (in the uid layout, the one agent of all). */
  stopAgent(workloadName: string): Promise<void> {
    return this.#stopAgent(this.#agentOf(workloadName));
  }

  /** Starts that agent again (it keeps its SVID on disk, so no new join token) and waits for its workloads. */
  async startAgent(workloadName: string): Promise<void> {
    await this.#startAgent(this.#agentOf(workloadName));
  }

  /** Stops the server; the agents keep running on what they hold. */
  async stopServer(): Promise<void> {
    if (this.#server) await this.options.children.stop([this.#server]);
    this.#server = undefined;
  }

  /** Stops the agents, then the server. The folder is the caller's to remove. */
  async close(): Promise<void> {
    await Promise.all([...this.#agents.values()].map((agent) => this.#stopAgent(agent)));
    await this.stopServer();
  }

  async #stopAgent(agent: AgentPlan): Promise<void> {
    if (agent.child) await this.options.children.stop([agent.child]);
    agent.child = undefined;
  }

  #agentOf(workloadName: string): AgentPlan {
    for (const agent of this.#agents.values()) if (agent.workloads.includes(workloadName)) return agent;
    throw new Error(`no SPIRE workload named ${workloadName}`);
  }

  #check(): void {
    const names = this.options.workloads.map((w) => w.name);
    for (const name of names) {
      if (!WORKLOAD_NAME.test(name))
        throw new SpireDeploymentError(
          `workload name ${JSON.stringify(name)} is not short lowercase letters, digits and -`,
        );
    }
    if (new Set(names).size !== names.length) throw new SpireDeploymentError('workload names must be distinct');
    for (const socket of [this.serverSocket, ...[...this.#agents.values()].map((a) => a.socketPath)]) {
      if (Buffer.byteLength(socket) > MAX_SOCKET_PATH_BYTES) {
        throw new SpireDeploymentError(
          `the socket path ${socket} is longer than ${MAX_SOCKET_PATH_BYTES} bytes: use a shorter folder (TMPDIR)`,
        );
      }
    }
  }

  async #start(): Promise<void> {
    const { dir, layout } = this.options;
    // The uid layout's workloads run as other users: they must reach the agent's socket.
    await chmod(dir, layout === 'uid' ? 0o755 : 0o700);
    await this.#startServer();
    const bundle = await this.serverCommand(['bundle', 'show']);
    const bootstrap = join(dir, 'bootstrap.pem');
    await writeFile(bootstrap, bundle, { mode: 0o600 });
    for (const agent of this.#agents.values()) await this.#register(agent, bootstrap);
    await Promise.all([...this.#agents.values()].map((agent) => this.#startAgent(agent)));
  }

  async #startServer(): Promise<void> {
    const { children, binaries, dir } = this.options;
    const dataDir = join(dir, 'server', 'data');
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    for (let attempt = 1; ; attempt += 1) {
      this.#serverPort = await reservePort();
      const configPath = join(dir, 'server', 'server.conf');
      const config = serverConfig({
        trustDomain: this.options.trustDomain,
        port: this.#serverPort,
        socketPath: this.serverSocket,
        dataDir,
        jwtKeyType: this.options.jwtKeyType ?? 'ec-p256',
      });
      await writeFile(configPath, config, { mode: 0o600 });
      const server = children.start('spire-server', binaries.server, ['run', '-config', configPath]);
      this.#server = server;
      try {
        await waitUntil('a healthy SPIRE server', () => this.#healthy(), server, READY_TIMEOUT_MS);
        return;
      } catch (err) {
        const portTaken = /address already in use/.test(logOf(server));
        if (!portTaken || attempt >= SERVER_START_ATTEMPTS) throw err;
      }
    }
  }

  async #healthy(): Promise<boolean> {
    const { children, binaries } = this.options;
    const check = await runCommand(children, 'spire-server healthcheck', binaries.server, [
      'healthcheck',
      '-socketPath',
      this.serverSocket,
    ]);
    return check.code === 0;
  }

  /** A join token for the agent (in a 0600 file, never on a command line) and one entry per workload under its alias. */
  async #register(agent: AgentPlan, bootstrap: string): Promise<void> {
    const agentDir = join(this.options.dir, 'agents', agent.label);
    const dataDir = join(agentDir, 'data');
    // Searchable down to the socket's folder (the agent makes that one 0755); the data stays private.
    await mkdir(agentDir, { recursive: true, mode: 0o755 });
    await mkdir(dataDir, { mode: 0o700 });
    const tokenFile = join(agentDir, 'join-token');
    const generated = await this.serverCommand([
      'token',
      'generate',
      '-spiffeID',
      agent.alias,
      '-ttl',
      String(JOIN_TOKEN_TTL_S),
      '-output',
      'json',
    ]);
    await writeFile(tokenFile, joinTokenOf(generated), { mode: 0o600 });
    const config = agentConfig({
      trustDomain: this.options.trustDomain,
      serverPort: this.#serverPort,
      socketPath: agent.socketPath,
      dataDir,
      trustBundlePath: bootstrap,
      joinTokenFile: tokenFile,
    });
    await writeFile(agent.configPath, config, { mode: 0o600 });
    const currentUid = process.getuid?.() ?? 0;
    for (const name of agent.workloads) {
      const spec = this.options.workloads.find((w) => w.name === name);
      const workload = this.workload(name);
      if (!spec) continue;
      await this.serverCommand([
        'entry',
        'create',
        '-parentID',
        agent.alias,
        '-spiffeID',
        spec.spiffeId,
        '-selector',
        `unix:uid:${workload.runAs?.uid ?? currentUid}`,
        '-jwtSVIDTTL',
        String(this.options.jwtSvidTtlS ?? DEFAULT_JWT_SVID_TTL_S),
        ...(spec.includeJti ? ['-jwtSVIDIncludeJTI'] : []),
      ]);
    }
  }

  async #startAgent(agent: AgentPlan): Promise<void> {
    const { children, binaries } = this.options;
    const child = children.start(`spire-agent (${agent.label})`, binaries.agent, ['run', '-config', agent.configPath]);
    agent.child = child;
    child.onLine((line) => {
      if (line.includes('msg="Fetched JWT SVID"')) this.#jwtSvidsServed += 1;
    });
    // The agent's own health check says nothing about entries: ask as each workload, as it will ask.
    await Promise.all(
      agent.workloads.map((name) =>
        waitUntil(
          `an X.509-SVID for ${name} from the SPIRE agent`,
          () => this.#hasIdentity(name),
          child,
          READY_TIMEOUT_MS,
        ),
      ),
    );
  }

  /** Whether `name` gets an SVID from its agent, asked as that workload (X.509: it leaves the JWT cache alone). */
  async #hasIdentity(name: string): Promise<boolean> {
    const workload = this.workload(name);
    const agent = this.#agentOf(name);
    const probe = await runCommand(
      this.options.children,
      `spire-agent api fetch x509 (as ${name})`,
      this.options.binaries.agent,
      ['api', 'fetch', 'x509', '-socketPath', agent.socketPath, '-silent', '-timeout', '5s'],
      workload.runAs ?? {},
    );
    return probe.code === 0;
  }
}

/** The `value` of `spire-server token generate -output json`. */
function joinTokenOf(stdout: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(stdout);
  } catch {
    parsed = undefined;
  }
  if (isRecord(parsed) && typeof parsed.value === 'string' && parsed.value !== '') return parsed.value;
  throw new SpireDeploymentError(`spire-server token generate printed no token${tail(stdout)}`);
}
