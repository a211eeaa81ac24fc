import { errorMessage } from '@notegate/kit';
import type { Command, ParsedOptions } from '@notegate/kit/cli';
import { EXIT, processIo, UsageError } from '@notegate/kit/cli';
import type { KeyFileChange } from '../authz/signing/key-file-maintenance.js';
import { changeKeyFile } from '../authz/signing/key-file-maintenance.js';

const options = {
  out: {
    type: 'string',
    valueName: 'FILE',
    required: true,
    description: 'The key file (a JWK Set of private P-256 keys) that authz --signing-keys reads.',
  },
  add: { type: 'boolean', description: 'Add a new key at the end of the existing FILE (rotation step 1).' },
  promote: {
    type: 'string',
    valueName: 'KID',
    defaultText: 'none',
    description: 'Move key KID first, so that it signs (rotation step 2). No key is generated.',
  },
  remove: {
    type: 'string',
    valueName: 'KID',
    defaultText: 'none',
    description: 'Remove key KID, which must not be the first (rotation step 3). No key is generated.',
  },
  kid: {
    type: 'string',
    valueName: 'KID',
    defaultText: 'the RFC 7638 thumbprint of the new key',
    description: 'kid of the new key.',
  },
} as const;

export function authzKeygenCommand(): Command<typeof options> {
  return {
    name: 'notegate authz keygen',
    usage: 'notegate authz keygen --out FILE [--add | --promote KID | --remove KID] [--kid KID]',
    summary:
      'Writes the signing key file of notegate authz --signing-keys: without --add, --promote or --remove a new\n' +
      'file with one new P-256 key (FILE must not exist). Every write replaces FILE atomically with mode 0600,\n' +
      'so running token services pick the change up whole. See docs/protocol.md, "Key rotation".',
    options,
    async run({ options: values }) {
      const change = parseChange(values);
      const outcome = await changeKeyFile(values.out, change).catch((err: unknown) => {
        throw new UsageError(`--out ${values.out}: ${errorMessage(err)}`);
      });
      if (outcome.newKid !== undefined) processIo.stdout(`${outcome.newKid}\n`);
      processIo.stderr(`wrote ${values.out}: ${outcome.kids[0]} signs; keys published: ${outcome.kids.join(', ')}\n`);
      return EXIT.ok;
    },
  };
}

function parseChange(values: ParsedOptions<typeof options>): KeyFileChange {
  const chosen = [values.add && '--add', values.promote && '--promote', values.remove && '--remove'].filter(Boolean);
  if (chosen.length > 1)
    throw new UsageError(`give at most one of --add, --promote, --remove (got ${chosen.join(', ')})`);
  if (values.promote !== undefined || values.remove !== undefined) {
    if (values.kid !== undefined) throw new UsageError('--kid names a new key; --promote and --remove make none');
    return values.promote !== undefined
      ? { kind: 'promote', kid: values.promote }
      : { kind: 'remove', kid: values.remove ?? '' };
  }
  const kid = values.kid === undefined ? {} : { kid: values.kid };
  return values.add ? { kind: 'add', ...kid } : { kind: 'create', ...kid };
}
