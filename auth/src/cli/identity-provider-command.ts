import type { Command } from '@notegate/kit/cli';
import {
  EXIT,
  operatorLog,
  packageVersion,
  parseChoice,
  parseInteger,
  processIo,
  untilShutdown,
} from '@notegate/kit/cli';
import { DEFAULT_SVID_TTL_S, DevelopmentIdentityProvider } from '../identity-provider/identity-provider.js';
import { KEY_TYPES } from '../identity-provider/key-ring.js';
import { formatSvidLogLine } from '../identity-provider/svid-log-line.js';
import { loadWorkloadsFile } from '../identity-provider/workloads-file.js';

/** Ours: a day; SPIRE caps JWT-SVID TTLs by its key lifetime, and the token service refuses over 300 s anyway. */
const MAX_SVID_TTL_S = 86_400;

const options = {
  workloads: {
    type: 'string',
    valueName: 'FILE',
    required: true,
    description: 'Workloads file (YAML: trust_domain, workloads: [{name, spiffe_id}]).',
  },
  'socket-dir': {
    type: 'string',
    valueName: 'DIR',
    required: true,
    description: 'Directory for the sockets, one <name>.sock per workload (created 0700 if absent).',
  },
  'svid-ttl': {
    type: 'string',
    valueName: 'SECONDS',
    default: String(DEFAULT_SVID_TTL_S),
    description: `Lifetime of each JWT-SVID, 1 to ${MAX_SVID_TTL_S}.`,
  },
  'key-type': {
    type: 'string',
    valueName: KEY_TYPES.join('|'),
    default: 'ec-p256',
    description: 'Signing key type: ec-p256 signs ES256, rsa-2048 signs RS256.',
  },
  'log-svids': {
    type: 'boolean',
    description:
      'Print one line on stderr per JWT-SVID minted: "identity-provider: minted JWT-SVID #<count> for ' +
      '<spiffe_id> aud <JSON list>" (notegate demo counts them to prove that no SVID was fetched).',
  },
} as const;

export function identityProviderCommand(): Command<typeof options> {
  return {
    name: 'notegate identity-provider',
    usage: 'notegate identity-provider --workloads FILE --socket-dir DIR [options]',
    summary:
      'Development SPIFFE identity provider: the real Workload API over unix sockets.\n\n' +
      'One socket per registered workload; connecting to a socket is the attestation. SIGHUP rotates\n' +
      'the signing key (the old key stays in the bundle until its SVIDs expire); SIGINT/SIGTERM remove\n' +
      'the sockets and exit.',
    options,
    async run({ options: values }) {
      const svidTtlS = parseInteger('--svid-ttl', values['svid-ttl'], 1, MAX_SVID_TTL_S);
      const keyType = parseChoice('--key-type', values['key-type'], KEY_TYPES);
      const config = await loadWorkloadsFile(values.workloads);
      const log = operatorLog('identity-provider');
      const provider = await DevelopmentIdentityProvider.start({
        config,
        socketDir: values['socket-dir'],
        svidTtlS,
        keyType,
        onEvent: log,
        ...(values['log-svids'] && { onSvidMinted: (minted) => processIo.stderr(`${formatSvidLogLine(minted)}\n`) }),
      });
      const rotate = () => {
        provider.rotate().catch((err: unknown) => log(`rotation failed: ${String(err)}`));
      };
      process.on('SIGHUP', rotate);
      // Handlers first: a supervisor may send SIGTERM as soon as it reads the line.
      const stopped = untilShutdown(async () => {
        process.off('SIGHUP', rotate);
        await provider.stop();
      });
      processIo.stdout(`listening on unix://${provider.socketDir}\n`);
      log(`version ${packageVersion(import.meta.url)}`);
      await stopped;
      return EXIT.ok;
    },
  };
}
