import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { isRecord } from '@notegate/kit';
import { reservePort } from '@notegate/kit/http';
import type { ChildProcesses, RunningChild } from '../../shared/child-processes.js';
import { outputTail } from '../../shared/child-processes.js';
import type { SpireLayout } from './layout.js';
import type { SpireBinaries } from './spire-binaries.js';
import type { SpireJwtKeyType } from './spire-config.js';
import { agentConfig, serverConfig } from './spire-config.js';
import type { AgentPlan, DeploymentPlan, SpireWorkload, SpireWorkloadSpec } from './spire-plan.js';
import { planDeployment } from './spire-plan.js';
import { commandOutput, logOf, runCommand, SpireDeploymentError, waitUntil } from './spire-process.js';

/** Ours: a hang detector for each readiness wait, far above the seconds they take on a busy machine. */
const READY_TIMEOUT_MS = 60_000;
/** SPIRE's own default JWT-SVID lifetime, and the most `notegate authz` accepts. */
const DEFAULT_JWT_SVID_TTL_S = 300;
/** Ours: a reserved port someone else took before the server bound it: try again with another. */
const SERVER_START_ATTEMPTS = 3;
/** Ours: a join token only has to last until its agent has attested, seconds after it is made. */
const JOIN_TOKEN_TTL_S = 600;
/** The workload's ID in an agent's log line (logrus quotes a value holding ':'). */
const SPIFFE_ID_FIELD = /\bspiffe_id="?(spiffe:\/\/[^"\s]+)/;

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

/**
 * A SPIRE 1.15.3 server and its agents on this machine, without containers, in `dir`, on a free
 * loopback port (docs/demo.md#the-local-deployment): join-token node attestation, the `unix`
 * workload attestor, one registration entry per workload. `start` returns once every workload can
 * really fetch its SVID through its agent; `close` stops every process it started.
 */
export class SpireDeployment {
  readonly options: SpireDeploymentOptions;
  readonly #plan: DeploymentPlan;
  readonly #agentProcesses = new Map<string, RunningChild>();
  #server: RunningChild | undefined;
  #serverPort = 0;
  #jwtSvidsServed = 0;
  readonly #jwtSvidsServedTo = new Map<string, number>();

  private constructor(options: SpireDeploymentOptions) {
    this.options = options;
    this.#plan = planDeployment({ ...options, currentUid: process.getuid?.() ?? 0 });
  }

  /** Starts the server, registers the workloads, starts the agents, and waits until every workload has its identity. */
  static async start(options: SpireDeploymentOptions): Promise<SpireDeployment> {
    const deployment = new SpireDeployment(options);
    try {
      await deployment.#start();
    } catch (err) {
      await deployment.close();
      throw err;
    }
    return deployment;
  }

  /** The admin API socket. */
  get serverSocket(): string {
    return this.#plan.serverSocket;
  }

  /** The workload named `name` (one of the options' workloads). */
  workload(name: string): SpireWorkload {
    const workload = this.#plan.workloads.find((w) => w.name === name);
    if (!workload) throw new Error(`no SPIRE workload named ${name}`);
    return workload;
  }

  get workloads(): readonly SpireWorkload[] {
    return this.#plan.workloads;
  }

  /** `127.0.0.1:<port>`: where the agents reach the server. */
  get serverAddress(): string {
    return `127.0.0.1:${this.#serverPort}`;
  }

  /** How many agents run: one, or one per workload. */
  get agentCount(): number {
    return this.#plan.agents.length;
  }

  /** JWT-SVIDs the agents have handed to workloads so far (cached ones included), from their logs. */
  get jwtSvidsServed(): number {
    return this.#jwtSvidsServed;
  }

  /** The same, for one SPIFFE ID. */
  jwtSvidsServedTo(spiffeId: string): number {
    return this.#jwtSvidsServedTo.get(spiffeId) ?? 0;
  }

  /** The daemons running now (server and agents), for a caller that reports crashes. */
  get daemons(): readonly RunningChild[] {
    return [this.#server, ...this.#agentProcesses.values()].filter(
      (child): child is RunningChild => child !== undefined && child.endedWith === undefined,
    );
  }

  /** `spire-server <args> -socketPath <admin socket>`; resolves with its stdout, fails on a non-zero exit. */
  serverCommand(args: readonly string[]): Promise<string> {
    const { children, binaries } = this.options;
    return commandOutput(children, `spire-server ${args.slice(0, 2).join(' ')}`, binaries.server, [
      ...args,
      '-socketPath',
      this.#plan.serverSocket,
    ]);
  }

  /** Stops the agent that serves `workloadName` (in the uid layout, the one agent of all). */
  stopAgent(workloadName: string): Promise<void> {
    return this.#stopAgent(this.#agentOf(workloadName));
  }

  /** Starts that agent again (it keeps its SVID on disk, so no new join token) and waits for its workloads. */
  startAgent(workloadName: string): Promise<void> {
    return this.#startAgent(this.#agentOf(workloadName));
  }

  /** Stops the server; the agents keep running on what they hold. */
  async stopServer(): Promise<void> {
    if (this.#server) await this.options.children.stop([this.#server]);
    this.#server = undefined;
  }

  /** Stops the agents, then the server. The folder is the caller's to remove. */
  async close(): Promise<void> {
    await Promise.all(this.#plan.agents.map((agent) => this.#stopAgent(agent)));
    await this.stopServer();
  }

  #agentOf(workloadName: string): AgentPlan {
    const label = this.#plan.workloads.find((w) => w.name === workloadName)?.agent;
    const agent = this.#plan.agents.find((a) => a.label === label);
    if (!agent) throw new Error(`no SPIRE workload named ${workloadName}`);
    return agent;
  }

  async #stopAgent(agent: AgentPlan): Promise<void> {
    const child = this.#agentProcesses.get(agent.label);
    if (child) await this.options.children.stop([child]);
    this.#agentProcesses.delete(agent.label);
  }

  async #start(): Promise<void> {
    const { dir, layout } = this.options;
    // The uid layout's workloads run as other users: they must reach the agent's socket.
    await chmod(dir, layout === 'uid' ? 0o755 : 0o700);
    await this.#startServer();
    await writeFile(this.#plan.bootstrapPath, await this.serverCommand(['bundle', 'show']), { mode: 0o600 });
    for (const agent of this.#plan.agents) await this.#register(agent);
    await Promise.all(this.#plan.agents.map((agent) => this.#startAgent(agent)));
  }

  async #startServer(): Promise<void> {
    const { children, binaries } = this.options;
    const { serverDataDir, serverConfigPath, serverSocket } = this.#plan;
    await mkdir(serverDataDir, { recursive: true, mode: 0o700 });
    for (let attempt = 1; ; attempt += 1) {
      this.#serverPort = await reservePort();
      const config = serverConfig({
        trustDomain: this.options.trustDomain,
        port: this.#serverPort,
        socketPath: serverSocket,
        dataDir: serverDataDir,
        jwtKeyType: this.options.jwtKeyType ?? 'ec-p256',
      });
      await writeFile(serverConfigPath, config, { mode: 0o600 });
      const server = children.start('spire-server', binaries.server, ['run', '-config', serverConfigPath]);
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
      this.#plan.serverSocket,
    ]);
    return check.code === 0;
  }

  /** A join token for the agent (in a 0600 file, never on a command line) and one entry per workload under its alias. */
  async #register(agent: AgentPlan): Promise<void> {
    // Searchable down to the socket's folder (the agent makes that one 0755); the data stays private.
    await mkdir(agent.dir, { recursive: true, mode: 0o755 });
    await mkdir(agent.dataDir, { mode: 0o700 });
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
    await writeFile(agent.tokenFile, joinTokenOf(generated), { mode: 0o600 });
    const config = agentConfig({
      trustDomain: this.options.trustDomain,
      serverPort: this.#serverPort,
      socketPath: agent.socketPath,
      dataDir: agent.dataDir,
      trustBundlePath: this.#plan.bootstrapPath,
      joinTokenFile: agent.tokenFile,
    });
    await writeFile(agent.configPath, config, { mode: 0o600 });
    for (const workload of this.#plan.workloads.filter((w) => w.agent === agent.label)) {
      await this.serverCommand([
        'entry',
        'create',
        '-parentID',
        agent.alias,
        '-spiffeID',
        workload.spiffeId,
        '-selector',
        `unix:uid:${workload.selectorUid}`,
        '-jwtSVIDTTL',
        String(this.options.jwtSvidTtlS ?? DEFAULT_JWT_SVID_TTL_S),
        ...(workload.includeJti ? ['-jwtSVIDIncludeJTI'] : []),
      ]);
    }
  }

  async #startAgent(agent: AgentPlan): Promise<void> {
    const { children, binaries } = this.options;
    const child = children.start(`spire-agent (${agent.label})`, binaries.agent, ['run', '-config', agent.configPath]);
    this.#agentProcesses.set(agent.label, child);
    child.onLine((line) => {
      if (!line.includes('msg="Fetched JWT SVID"')) return;
      this.#jwtSvidsServed += 1;
      const spiffeId = SPIFFE_ID_FIELD.exec(line)?.[1];
      if (spiffeId !== undefined) this.#jwtSvidsServedTo.set(spiffeId, this.jwtSvidsServedTo(spiffeId) + 1);
    });
    // The agent's own health check says nothing about entries: ask as each workload, as it will ask.
    await Promise.all(
      agent.workloads.map((name) =>
        waitUntil(
          `an X.509-SVID for ${name} from the SPIRE agent`,
          () => this.#hasIdentity(this.workload(name), agent),
          child,
          READY_TIMEOUT_MS,
        ),
      ),
    );
  }

  /** Whether `workload` gets an SVID from its agent, asked as that workload (X.509: it leaves the JWT cache alone). */
  async #hasIdentity(workload: SpireWorkload, agent: AgentPlan): Promise<boolean> {
    const probe = await runCommand(
      this.options.children,
      `spire-agent api fetch x509 (as ${workload.name})`,
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
  throw new SpireDeploymentError(`spire-server token generate printed no token${outputTail(stdout)}`);
}
