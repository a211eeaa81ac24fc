import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { posix } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { isRecord } from '@notegate/kit';
import type { Command, OptionsSpec } from '@notegate/kit/cli';
import { parseCommandLine, parseHttpUrl, parsePort } from '@notegate/kit/cli';
import { parse } from 'yaml';
import { REPLAY_MODES } from '../../src/authz/check-replay.js';
import { agentCommand } from '../../src/cli/agent-command.js';
import { authzCommand } from '../../src/cli/authz-command.js';
import { authzKeygenCommand } from '../../src/cli/authz-keygen-command.js';
import { demoCommand } from '../../src/cli/demo-command.js';
import { identityProviderCommand } from '../../src/cli/identity-provider-command.js';
import { mcpSvidStdioCommand } from '../../src/cli/mcp-svid-stdio-command.js';
import { notesServerCommand } from '../../src/cli/notes-server-command.js';
import { parseReplayStore } from '../../src/cli/replay-store-option.js';
import { parsePolicy } from '../../src/policy/policy-file.js';
import { parseSpiffeId } from '../../src/spiffe/spiffe-id.js';
import { parseWorkloadApiAddress } from '../../src/spiffe/workload-api/address.js';
import { shellAssignments, splitShellWords } from '../support/shell-words.js';

/**
 * deploy/spire cannot run here (no container engine), so this reads it the way Compose and bash
 * would and checks every notegate command line in it against the CLIs' real option parsers, plus
 * the wiring between services: pinned SPIRE images, the Workload API socket shared with every
 * workload, registration entries that select labels the services carry, URLs that match.
 */
const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const DEPLOY = posix.join(ROOT, 'deploy/spire');
const read = (file: string) => readFileSync(posix.join(DEPLOY, file), 'utf8');

const SPIRE_VERSION = '1.15.3';
const LABEL = 'org.notegate.workload';
const NOTEGATE_IMAGE = 'notegate:local';

/** The executables and their subcommands, as the deployment may call them. */
const COMMANDS: ReadonlyMap<string, Command> = new Map<string, Command>([
  ['notegate identity-provider', identityProviderCommand()],
  ['notegate authz', authzCommand()],
  ['notegate authz keygen', authzKeygenCommand()],
  ['notegate notes-server', notesServerCommand],
  ['notegate agent', agentCommand()],
  ['notegate demo', demoCommand()],
  ['mcp-svid-stdio', mcpSvidStdioCommand()],
]);

interface Service {
  readonly name: string;
  readonly image: string;
  readonly command: readonly string[] | undefined;
  readonly entrypoint: readonly string[] | undefined;
  readonly labels: Readonly<Record<string, string>>;
  readonly environment: Readonly<Record<string, string>>;
  readonly volumes: readonly { source: string; target: string; readOnly: boolean }[];
  readonly dependsOn: readonly string[];
  readonly pid: string | undefined;
}

function strings(value: unknown, where: string): string[] | undefined {
  if (value === undefined) return undefined;
  assert.ok(Array.isArray(value) && value.every((item) => typeof item === 'string'), `${where} is a list of strings`);
  return value;
}

function stringMap(value: unknown, where: string): Record<string, string> {
  if (value === undefined) return {};
  assert.ok(isRecord(value), `${where} is a mapping`);
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, String(item)]));
}

function parseService(name: string, raw: unknown): Service {
  assert.ok(isRecord(raw), `services.${name} is a mapping`);
  assert.equal(typeof raw.image, 'string', `services.${name}.image`);
  const volumes = (strings(raw.volumes, `services.${name}.volumes`) ?? []).map((spec) => {
    const [source = '', target = '', mode] = spec.split(':');
    return { source, target, readOnly: mode === 'ro' };
  });
  const dependsOn = raw.depends_on === undefined ? [] : Object.keys(stringMap(raw.depends_on, `${name}.depends_on`));
  return {
    name,
    image: String(raw.image),
    command: strings(raw.command, `services.${name}.command`),
    entrypoint: strings(raw.entrypoint, `services.${name}.entrypoint`),
    labels: stringMap(raw.labels, `services.${name}.labels`),
    environment: stringMap(raw.environment, `services.${name}.environment`),
    volumes,
    dependsOn,
    pid: typeof raw.pid === 'string' ? raw.pid : undefined,
  };
}

function loadCompose(): Map<string, Service> {
  // merge: the file shares settings with YAML merge keys (<<: *notegate), as Compose reads it.
  const compose: unknown = parse(read('compose.yaml'), { merge: true });
  assert.ok(isRecord(compose) && isRecord(compose.services), 'compose.yaml has services');
  return new Map(Object.entries(compose.services).map(([name, raw]) => [name, parseService(name, raw)]));
}

/** The value of `--flag` in a command line (the last one, as parseArgs keeps). */
function flag(argv: readonly string[], name: string): string | undefined {
  const index = argv.lastIndexOf(`--${name}`);
  return index < 0 ? undefined : argv[index + 1];
}

const URL_FLAGS = ['issuer', 'resource', 'jwks-uri', 'trusted-issuer', 'steal-token'];

/**
 * Parses `argv` (after the executable) with the command's own option spec, as `runCommand` does
 * before anything is opened, then checks the values whose syntax the commands check at start-up.
 */
function checkCommandLine(executable: string, argv: readonly string[], where: string): string {
  const [sub = '', ...rest] = argv;
  // `notegate authz keygen …`: a command under a command.
  const nested = executable === 'notegate' && COMMANDS.has(`notegate ${sub} ${rest[0]}`);
  const key = executable !== 'notegate' ? executable : nested ? `notegate ${sub} ${rest[0]}` : `notegate ${sub}`;
  const command = COMMANDS.get(key);
  assert.ok(command, `${where}: '${key}' is a command we ship`);
  const args = executable !== 'notegate' ? argv : nested ? rest.slice(1) : rest;
  const spec: OptionsSpec = command.options;
  assert.doesNotThrow(
    () => parseCommandLine(spec, args, { acceptsRest: command.acceptsRest ?? false }),
    `${where}: ${key} ${args.join(' ')}`,
  );
  for (const [index, word] of args.entries()) {
    const value = args[index + 1] ?? '';
    const name = word.replace(/^--/, '');
    if (URL_FLAGS.includes(name)) parseHttpUrl(word, value);
    if (name === 'workload-api') parseWorkloadApiAddress(value, word);
    if (name === 'port') parsePort(word, value);
    if (name === 'svid-replay') assert.ok((REPLAY_MODES as readonly string[]).includes(value), `${where}: ${value}`);
    if (name === 'replay-store') parseReplayStore(word, value, undefined);
    if (name === 'metrics-port') parsePort(word, value);
  }
  return key;
}

/** Commands given to the notegate image's entry point (`node /app/auth/bin/notegate.js`). */
function notegateCommands(services: Map<string, Service>) {
  return [...services.values()].filter(
    (service) => service.image === NOTEGATE_IMAGE && service.command !== undefined && service.entrypoint === undefined,
  );
}

/** `name=(notegate … )` lines of a script (scenarios.sh, keys.sh): every command line it runs, words resolved. */
function scenarioCommandLines(script: string) {
  const variables = shellAssignments(script);
  return [...script.matchAll(/^\s*(\w+)=\(((?:notegate|mcp-svid-stdio) .*)\)$/gm)].map(([, name = '', line = '']) => {
    const [executable = '', ...argv] = splitShellWords(line, variables);
    return { name, executable, argv };
  });
}

/** `register <SPIFFE ID> <label value>` lines of setup.sh. */
function registrations(setup: string) {
  return [...setup.matchAll(/^register (\S+) (\S+)$/gm)].map(([, spiffeId = '', label = '']) => ({ spiffeId, label }));
}

function confValue(conf: string, key: string): string | undefined {
  return new RegExp(`^\\s*${key}\\s*=\\s*"([^"]*)"`, 'm').exec(conf)?.[1];
}

describe('deploy/spire (Compose file, configs and scripts, checked without a container engine)', () => {
  const services = loadCompose();
  const service = (name: string) => {
    const found = services.get(name);
    assert.ok(found, `service ${name}`);
    return found;
  };
  const REPLICAS = ['authz-1', 'authz-2'];
  const authzArgs = service('authz-1').command ?? [];
  const issuer = flag(authzArgs, 'issuer') ?? '';

  it('pins SPIRE server and agent 1.15.3, in compose.yaml and in the Dockerfile', () => {
    assert.equal(service('spire-server').image, `ghcr.io/spiffe/spire-server:${SPIRE_VERSION}`);
    assert.equal(service('spire-agent').image, `ghcr.io/spiffe/spire-agent:${SPIRE_VERSION}`);
    for (const { image, name } of services.values()) {
      if (image.includes('spiffe')) assert.match(image, new RegExp(`:${SPIRE_VERSION.replace(/\./g, '\\.')}$`), name);
    }
    const dockerfile = read('Dockerfile');
    assert.match(dockerfile, /^FROM ghcr\.io\/spiffe\/spire-server:1\.15\.3 AS spire$/m);
    assert.match(dockerfile, /^FROM node:20/m);
    assert.match(dockerfile, /^RUN npm ci/m);
    assert.match(dockerfile, /^ENTRYPOINT \["node", "\/app\/auth\/bin\/notegate\.js"\]$/m);
    assert.ok(existsSync(posix.join(ROOT, 'auth/bin/notegate.js')));
  });

  it('every notegate command line of every service parses with that command’s real options', () => {
    const checked = notegateCommands(services).map((s) => checkCommandLine('notegate', s.command ?? [], s.name));
    assert.deepEqual(checked.sort(), [
      'notegate authz',
      'notegate authz',
      'notegate notes-server',
      'notegate notes-server',
      'notegate notes-server',
    ]);
  });

  it('every command line in scenarios.sh parses with the real options, and no notegate call escapes that list', () => {
    const script = read('scenarios.sh');
    const lines = scenarioCommandLines(script);
    for (const { name, executable, argv } of lines) checkCommandLine(executable, argv, `scenarios.sh ${name}`);
    const calls = script
      .split('\n')
      .filter((line) => /^\s*[^#\s].*\bnotegate (agent|authz|notes-server|demo|identity-provider)\b/.test(line));
    assert.equal(calls.length, lines.length, `unchecked notegate calls:\n${calls.join('\n')}`);
    assert.ok(lines.length >= 7, `${lines.length} command lines`);
  });

  it('scenarios.sh targets the deployment: the trusted issuer is authz, the resources are the notes servers', () => {
    const resources = new Map(
      ['notes-a', 'notes-b', 'notes-c'].map((name) => [name, flag(service(name).command ?? [], 'resource')]),
    );
    const lines = scenarioCommandLines(read('scenarios.sh'));
    for (const { name, argv } of lines) {
      assert.equal(flag(argv, 'trusted-issuer'), issuer, `${name}: --trusted-issuer`);
      assert.ok([...resources.values()].includes(flag(argv, 'resource')), `${name}: --resource`);
    }
    const steal = lines.find((line) => line.argv.includes('--steal-token'));
    assert.equal(flag(steal?.argv ?? [], 'resource'), resources.get('notes-a'));
    assert.equal(flag(steal?.argv ?? [], 'steal-token'), resources.get('notes-b'));
    const untrusted = lines.filter((line) => flag(line.argv, 'resource') === resources.get('notes-c'));
    assert.equal(untrusted.length, 1, 'scenario 4 calls notes-c once');
    assert.match(
      shellAssignments(read('scenarios.sh')).get('UNTRUSTED_COUNT') ?? '',
      /^http:\/\/untrusted-issuer:9001\//,
    );
  });

  it('builds the index of vaults.json before the notes servers start, and each serves the handbook and its own vault', () => {
    const config = JSON.parse(read('vaults.json')) as {
      embed_model: string;
      index_path: string;
      vaults: { id: string; path: string }[];
    };
    assert.equal(config.embed_model, 'none', 'the image has no model: a lexical-only index');
    const index = service('index');
    assert.deepEqual(index.entrypoint, ['node', '/app/rag/bin/notegate-rag.js']);
    assert.ok(existsSync(posix.join(ROOT, 'rag/bin/notegate-rag.js')));
    assert.deepEqual(index.command, ['index', '--config', '/deploy/vaults.json']);
    const dataVolume = index.volumes.find((volume) => config.index_path.startsWith(`${volume.target}/`));
    assert.ok(dataVolume, 'the index lies on a volume');
    const handbook = config.vaults.find((vault) => vault.id === 'handbook');
    assert.equal(handbook?.path, '/app/demo/vaults/handbook');
    assert.ok(existsSync(posix.join(ROOT, 'demo/vaults/handbook')), 'the image holds the repository (COPY . .)');
    for (const name of ['notes-a', 'notes-b', 'notes-c']) {
      const notes = service(name);
      const args = notes.command ?? [];
      assert.equal(flag(args, 'vaults-config'), '/deploy/vaults.json', name);
      assert.ok(
        notes.volumes.some((volume) => volume.source === '.' && volume.target === '/deploy'),
        name,
      );
      assert.ok(
        notes.volumes.some((volume) => volume.source === dataVolume.source),
        `${name} shares the index volume`,
      );
      assert.ok(notes.dependsOn.includes('index'), `${name} starts after the index run`);
      const vaults = args.flatMap((word, i) => (word === '--vault' ? [args[i + 1]] : []));
      assert.deepEqual(vaults, ['handbook', name], name);
      assert.equal(flag(args, 'write-vault'), name, name);
      const own = config.vaults.find((vault) => vault.id === name);
      assert.ok(own?.path.startsWith(`${dataVolume.target}/`), `${name}'s vault lies on the volume`);
      assert.match(
        read('Dockerfile'),
        new RegExp(own?.path ?? 'nothing'),
        `${name}'s vault folder is made in the image`,
      );
    }
  });

  it('authz reads bundles from the SPIRE agent and allows SVID reuse (the agent caches SVIDs without jti)', () => {
    for (const name of REPLICAS) {
      const args = service(name).command ?? [];
      assert.equal(flag(args, 'svid-replay'), 'allow-reuse-within-lifetime', name);
      assert.equal(flag(args, 'jwt-bundle'), undefined, name);
      assert.ok(flag(args, 'workload-api'), name);
    }
    for (const name of ['notes-a', 'notes-b']) {
      const args = service(name).command ?? [];
      assert.equal(flag(args, 'issuer'), issuer, `${name} trusts authz`);
      assert.equal(flag(args, 'jwks-uri'), `${issuer}/jwks.json`, `${name} fetches authz's keys`);
    }
    const rogue = service('notes-c').command ?? [];
    assert.notEqual(flag(rogue, 'issuer'), issuer);
    assert.equal(new URL(flag(rogue, 'issuer') ?? '').hostname, 'untrusted-issuer');
    assert.ok(services.has('untrusted-issuer'));
  });

  it('shares the SPIRE agent socket volume with authz, reader and agent, and each points at the socket', () => {
    const socketPath = confValue(read('agent.conf'), 'socket_path') ?? '';
    const agentMount = service('spire-agent').volumes.find((volume) => volume.target === posix.dirname(socketPath));
    assert.ok(agentMount, `spire-agent mounts a volume at ${posix.dirname(socketPath)}`);
    const socketVolume = agentMount.source;
    for (const name of [...REPLICAS, 'reader', 'agent']) {
      const mount = service(name).volumes.find((volume) => volume.source === socketVolume);
      assert.ok(mount, `${name} mounts ${socketVolume}`);
      const address = REPLICAS.includes(name)
        ? flag(service(name).command ?? [], 'workload-api')
        : service(name).environment.SPIFFE_ENDPOINT_SOCKET;
      assert.equal(address, `unix://${posix.join(mount.target, posix.basename(socketPath))}`, name);
    }
  });

  it('registers each workload by a container label that its services carry (both authz replicas are authz)', () => {
    const entries = registrations(read('setup.sh'));
    assert.match(read('setup.sh'), new RegExp(`^LABEL=${LABEL.replace(/\./g, '\\.')}$`, 'm'));
    assert.deepEqual(entries.map((entry) => entry.label).sort(), ['agent', 'authz', 'reader']);
    for (const { spiffeId, label } of entries) {
      assert.equal(parseSpiffeId(spiffeId).trustDomain, 'example.org');
      const carriers = [...services.values()].filter((s) => s.labels[LABEL] === label);
      assert.deepEqual(
        carriers.map((s) => s.name),
        label === 'authz' ? REPLICAS : [label],
        `docker:label:${LABEL}:${label}`,
      );
    }
    const labelled = [...services.values()].filter((s) => s.labels[LABEL] !== undefined).map((s) => s.name);
    assert.deepEqual(labelled.sort(), ['agent', ...REPLICAS, 'reader']);
  });

  it('grants in policy.yaml name registered identities and the notes servers’ resources', () => {
    for (const name of REPLICAS) {
      assert.equal(flag(service(name).command ?? [], 'policy'), '/deploy/policy.yaml', name);
      assert.ok(
        service(name).volumes.some((v) => v.source === '.' && v.target === '/deploy'),
        name,
      );
    }
    const policy = parsePolicy(read('policy.yaml'), 'deploy/spire/policy.yaml');
    const registered = new Set(registrations(read('setup.sh')).map((entry) => entry.spiffeId));
    const resource = (name: string) => flag(service(name).command ?? [], 'resource') ?? '';
    const agent = policy.grantFor('spiffe://example.org/agent');
    const reader = policy.grantFor('spiffe://example.org/reader');
    assert.ok(registered.has('spiffe://example.org/agent') && registered.has('spiffe://example.org/reader'));
    const scopes = (set: ReadonlySet<string> | undefined) => [...(set ?? [])].sort();
    assert.deepEqual(scopes(agent?.scopesFor(resource('notes-a'))), ['notes:read', 'notes:write']);
    assert.deepEqual(scopes(agent?.scopesFor(resource('notes-b'))), ['notes:read']);
    assert.deepEqual(scopes(reader?.scopesFor(resource('notes-a'))), ['notes:read']);
    assert.equal(reader?.scopesFor(resource('notes-b')), undefined);
  });

  it('configures SPIRE for example.org: join-token node attestation, the docker workload attestor, 300 s SVIDs', () => {
    const server = read('server.conf');
    const agent = read('agent.conf');
    assert.equal(confValue(server, 'trust_domain'), 'example.org');
    assert.equal(confValue(agent, 'trust_domain'), 'example.org');
    assert.equal(confValue(server, 'default_jwt_svid_ttl'), '5m');
    assert.match(server, /NodeAttestor "join_token"/);
    assert.match(agent, /NodeAttestor "join_token"/);
    assert.match(agent, /WorkloadAttestor "docker"/);
    assert.equal(confValue(agent, 'server_address'), 'spire-server');
    assert.match(read('setup.sh'), /-jwtSVIDTTL 300\b/);
    const spireAgent = service('spire-agent');
    assert.equal(spireAgent.pid, 'host', 'the docker attestor reads the caller’s cgroup from the host PID namespace');
    assert.ok(spireAgent.volumes.some((v) => v.source === '/var/run/docker.sock'));
    assert.deepEqual(spireAgent.command, ['-config', '/run/spire/bootstrap/agent.conf']);
  });

  it('runs the scripts it names, from the mounted folder, and depends only on services it has', () => {
    for (const s of services.values()) {
      for (const target of s.dependsOn) assert.ok(services.has(target), `${s.name} depends on ${target}`);
      const script = s.entrypoint?.find((word) => word.startsWith('/deploy/'));
      if (script === undefined) continue;
      assert.ok(existsSync(posix.join(DEPLOY, script.replace('/deploy/', ''))), `${s.name}: ${script}`);
      assert.ok(
        s.volumes.some((v) => v.source === '.' && v.target === '/deploy'),
        `${s.name} mounts the folder`,
      );
    }
    const imported = /from '\/app\/(auth\/dist\/src\/demo\/untrusted-issuer\.js)'/.exec(
      read('untrusted-issuer.mjs'),
    )?.[1];
    assert.ok(imported && existsSync(posix.join(ROOT, imported)), 'untrusted-issuer.mjs imports a module of the image');
  });

  it('runs two authz replicas behind one issuer, with one Redis store, one key file and an audit file each', () => {
    const compose = parse(read('compose.yaml'), { merge: true }) as {
      services: Record<string, Record<string, unknown>>;
    };
    const commands = REPLICAS.map((name) => service(name).command ?? []);
    const without = (args: readonly string[], name: string) => {
      const index = args.indexOf(`--${name}`);
      return [...args.slice(0, index), ...args.slice(index + 2)];
    };
    // The same command line but for the audit file, which is the replica's own.
    assert.deepEqual(without(commands[0] ?? [], 'audit-log'), without(commands[1] ?? [], 'audit-log'));
    assert.deepEqual(
      commands.map((args) => flag(args, 'audit-log')),
      ['/var/log/notegate/authz-1.log', '/var/log/notegate/authz-2.log'],
    );
    // Both answer to the issuer's host name: the network alias is what the issuer URL names.
    for (const name of REPLICAS) {
      assert.deepEqual(compose.services[name]?.networks, { demo: { aliases: [new URL(issuer).hostname] } }, name);
    }
    assert.equal(new URL(issuer).hostname, 'authz');
    assert.equal(services.has('authz'), false, 'no service is called authz itself: the name is the alias');

    const store = parseReplayStore('--replay-store', flag(authzArgs, 'replay-store') ?? '', undefined);
    assert.equal(store.kind, 'redis');
    assert.equal(store.kind === 'redis' && store.connection.host, 'redis');
    assert.match(service('redis').image, /^redis:\d+\.\d+\.\d+-alpine$/, 'a pinned Redis image');
    for (const name of REPLICAS) {
      assert.ok(service(name).dependsOn.includes('redis'), `${name} waits for redis`);
      assert.ok(service(name).dependsOn.includes('authz-keys'), `${name} waits for its key file`);
      assert.equal(
        flag(service(name).command ?? [], 'metrics-host'),
        '0.0.0.0',
        `${name} metrics reachable in the network`,
      );
    }

    // keys.sh writes the key file once, where both replicas read it, with a command line keygen takes.
    const keysScript = read('keys.sh');
    const keygen = scenarioCommandLines(keysScript);
    assert.equal(keygen.length, 1);
    const [line] = keygen;
    assert.equal(line && checkCommandLine(line.executable, line.argv, 'keys.sh'), 'notegate authz keygen');
    const keyFile = flag(line?.argv ?? [], 'out') ?? '';
    assert.equal(flag(authzArgs, 'signing-keys'), keyFile);
    const keyVolume = service('authz-keys').volumes.find((v) => v.target === posix.dirname(keyFile))?.source;
    assert.ok(keyVolume, 'authz-keys mounts the key folder');
    for (const name of REPLICAS) {
      const mounted: Service['volumes'][number] | undefined = service(name).volumes.find((v) => v.source === keyVolume);
      assert.deepEqual(mounted, { source: keyVolume, target: posix.dirname(keyFile), readOnly: true }, name);
    }
    assert.match(read('Dockerfile'), new RegExp(`${posix.dirname(keyFile).replace(/\//g, '\\/')}`));
  });
});
