import { rm } from 'node:fs/promises';
import { Server, ServerCredentials } from '@grpc/grpc-js';
import { errorMessage } from '@notegate/kit';
import type { Clock } from '../shared/clock.js';
import { epochSeconds, systemClock } from '../shared/clock.js';
import { MemoryBundleSource } from '../spiffe/bundles/memory-bundle-source.js';
import { trustDomainId } from '../spiffe/spiffe-id.js';
import { verifyJwtSvid } from '../spiffe/svid/verify-jwt-svid.js';
import { workloadApiService } from '../spiffe/workload-api/proto.js';
import type { KeyType } from './key-ring.js';
import { SigningKeyRing } from './key-ring.js';
import { mintJwtSvid } from './mint-svid.js';
import { bindPrivately, clearStaleSocket, prepareSocketDir, socketPathFor } from './socket-dir.js';
import type { BundleSubscriber, WorkloadServiceContext } from './workload-service.js';
import { workloadService } from './workload-service.js';
import type { WorkloadsConfig } from './workloads-file.js';

export interface IdentityProviderOptions {
  readonly config: WorkloadsConfig;
  readonly socketDir: string;
  readonly svidTtlS: number;
  readonly keyType: KeyType;
  readonly clock?: Clock;
  /** Rotations, key retirements and unexpected errors, for the operator's log. */
  readonly onEvent?: (message: string) => void;
  /** Called once per JWT-SVID minted (every FetchJWTSVID answer), after it is signed and before it is sent. */
  readonly onSvidMinted?: (minted: MintedSvid) => void;
}

/** What `onSvidMinted` reports: the running count, whose SVID it was and for which audience. */
export interface MintedSvid {
  readonly count: number;
  readonly spiffeId: string;
  readonly audience: readonly string[];
}

export const DEFAULT_SVID_TTL_S = 300;
/** Grace for in-flight streams on stop before they are cut. */
const SHUTDOWN_GRACE_MS = 1_000;

/**
 * The development SPIFFE identity provider (docs/protocol.md#development-identity-provider-notegate-identity-provider): the real Workload API over one unix socket
 * per registered workload. Connecting to a socket is the attestation.
 */
export class DevelopmentIdentityProvider {
  readonly socketDir: string;
  private readonly servers: Server[] = [];
  private readonly socketPaths: string[] = [];
  private readonly subscribers = new Set<BundleSubscriber>();
  private readonly ownBundle = new MemoryBundleSource();
  private readonly clock: Clock;
  private readonly onEvent: (message: string) => void;
  private pruneTimer: NodeJS.Timeout | undefined;
  private minted = 0;

  private constructor(
    private readonly options: IdentityProviderOptions,
    socketDir: string,
    private readonly keys: SigningKeyRing,
  ) {
    this.socketDir = socketDir;
    this.clock = options.clock ?? systemClock;
    this.onEvent = options.onEvent ?? (() => {});
  }

  /** Creates the socket directory, binds every socket (owner-only) and resolves once all accept connections. */
  static async start(options: IdentityProviderOptions): Promise<DevelopmentIdentityProvider> {
    const socketDir = await prepareSocketDir(options.socketDir);
    const paths = options.config.workloads.map((workload) => socketPathFor(socketDir, workload.name));
    for (const path of paths) await clearStaleSocket(path);
    const keys = await SigningKeyRing.create(options.keyType, options.clock ?? systemClock);
    const provider = new DevelopmentIdentityProvider(options, socketDir, keys);
    await provider.publishBundle();
    try {
      for (const [index, workload] of options.config.workloads.entries()) {
        await provider.serve(workload, paths[index] ?? socketPathFor(socketDir, workload.name));
      }
    } catch (err) {
      await provider.stop();
      throw err;
    }
    return provider;
  }

  /** JWT-SVIDs minted so far (FetchJWTSVID answers), on every socket: lets tests prove a call never happened. */
  get svidsMinted(): number {
    return this.minted;
  }

  socketPath(name: string): string {
    return socketPathFor(this.socketDir, name);
  }

  /** The trust domain's current JWT bundle (plain JWKS). */
  bundle(): { keys: object[] } {
    return this.keys.jwks();
  }

  /** New signing key; the old one stays in the bundle until its SVIDs expire. Returns the new kid. */
  async rotate(): Promise<string> {
    const key = await this.keys.rotate();
    await this.publishBundle();
    this.schedulePrune();
    this.onEvent(`rotated the JWT signing key; new kid ${key.kid}`);
    return key.kid;
  }

  /** Drops retired keys whose SVIDs have all expired and re-sends the bundle if it changed. */
  async pruneRetiredKeys(): Promise<void> {
    if (!this.keys.prune()) return;
    await this.publishBundle();
    this.onEvent('removed an expired signing key from the JWT bundle');
  }

  /** Ends bundle streams, closes every server and removes the sockets. */
  async stop(): Promise<void> {
    clearTimeout(this.pruneTimer);
    for (const subscriber of this.subscribers) subscriber.end();
    this.subscribers.clear();
    await Promise.all(this.servers.map(shutdown));
    this.servers.length = 0;
    await Promise.all(this.socketPaths.map((path) => rm(path, { force: true })));
    await this.ownBundle.close();
  }

  private async serve(workload: WorkloadsConfig['workloads'][number], path: string): Promise<void> {
    const server = new Server();
    server.addService(workloadApiService().definition, workloadService(workload, this.context()));
    this.servers.push(server);
    // Owner-only from the first instant: any local user who can connect would be attested as this workload.
    await bindPrivately(path, (stagingPath) => {
      return new Promise<void>((resolve, reject) => {
        const address = `unix://${stagingPath}`;
        server.bindAsync(address, ServerCredentials.createInsecure(), (err) => (err ? reject(err) : resolve()));
      });
    });
    this.socketPaths.push(path);
  }

  private context(): WorkloadServiceContext {
    return {
      mintSvid: (spiffeId, audience) => this.mint(spiffeId, audience),
      subscribeBundles: (subscriber) => {
        subscriber.send(this.bundleMessage());
        this.subscribers.add(subscriber);
        return () => this.subscribers.delete(subscriber);
      },
      validateSvid: async (svid, audience) => {
        const verified = await verifyJwtSvid(svid, { bundles: this.ownBundle, audience, clock: this.clock });
        const { aud } = verified.claims;
        // SPIRE normalises a single-string aud to an array in ValidateJWTSVID's claims.
        const claims = typeof aud === 'string' ? { ...verified.claims, aud: [aud] } : verified.claims;
        return { spiffeId: verified.subject.id, claims };
      },
      reportError: (err) => this.onEvent(`unexpected error: ${errorMessage(err)}`),
    };
  }

  private async mint(spiffeId: string, audience: readonly string[]): Promise<string> {
    const nowS = epochSeconds(this.clock);
    const ttlS = this.options.svidTtlS;
    const svid = await mintJwtSvid(this.keys.signingKey, { spiffeId, audience, nowS, ttlS });
    this.minted += 1;
    this.keys.noteSigned((nowS + ttlS) * 1000);
    this.options.onSvidMinted?.({ count: this.minted, spiffeId, audience });
    return svid;
  }

  private bundleMessage(): object {
    const bytes = Buffer.from(JSON.stringify(this.keys.jwks()));
    return { bundles: { [trustDomainId(this.options.config.trustDomain)]: bytes } };
  }

  /** Workload API §4.3: every message is the complete state, sent again on every change. */
  private async publishBundle(): Promise<void> {
    await this.ownBundle.set(new Map([[this.options.config.trustDomain, this.keys.jwks()]]));
    const message = this.bundleMessage();
    for (const subscriber of this.subscribers) subscriber.send(message);
  }

  private schedulePrune(): void {
    clearTimeout(this.pruneTimer);
    const next = this.keys.nextRetirementMs();
    if (next === null) return;
    this.pruneTimer = setTimeout(
      () => {
        this.pruneRetiredKeys()
          .then(() => this.schedulePrune())
          .catch((err: unknown) => this.onEvent(`pruning keys failed: ${String(err)}`));
      },
      Math.max(0, next - this.clock()) + 1,
    );
    this.pruneTimer.unref();
  }
}

function shutdown(server: Server): Promise<void> {
  return new Promise((resolve) => {
    const force = setTimeout(() => {
      server.forceShutdown();
      resolve();
    }, SHUTDOWN_GRACE_MS);
    server.tryShutdown(() => {
      clearTimeout(force);
      resolve();
    });
  });
}
