import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RagConfig } from '../../src/config/load-config.js';
import { selectVaults } from '../../src/notes/vault-options.js';

const config = {
  configPath: '/repo/rag/vaults.json',
  vaults: [{ id: 'handbook' }, { id: 'notes-a' }, { id: 'notes-b' }],
} as unknown as RagConfig;

describe('--vault and --write-vault', () => {
  const cases: [string, string[], string | undefined, { vaultIds: string[]; writeVaultId: string } | RegExp][] = [
    [
      'every vault, the first written',
      [],
      undefined,
      { vaultIds: ['handbook', 'notes-a', 'notes-b'], writeVaultId: 'handbook' },
    ],
    [
      'the named ones, the first written',
      ['notes-a', 'handbook'],
      undefined,
      { vaultIds: ['notes-a', 'handbook'], writeVaultId: 'notes-a' },
    ],
    [
      'a write vault among them',
      ['handbook', 'notes-a'],
      'notes-a',
      { vaultIds: ['handbook', 'notes-a'], writeVaultId: 'notes-a' },
    ],
    ['a repeated one once', ['notes-a', 'notes-a'], undefined, { vaultIds: ['notes-a'], writeVaultId: 'notes-a' }],
    [
      'an undeclared vault',
      ['ghost'],
      undefined,
      /^--vault: vault 'ghost' is not declared in \/repo\/rag\/vaults\.json \(declared: handbook, notes-a, notes-b\)$/,
    ],
    ['an undeclared write vault', [], 'ghost', /^--write-vault: vault 'ghost' is not declared/],
    [
      'a write vault not served',
      ['handbook'],
      'notes-a',
      /^--write-vault: 'notes-a' is not one of the served vaults \(handbook\)$/,
    ],
  ];
  for (const [what, vaults, writeVault, expected] of cases) {
    it(what, () => {
      if (expected instanceof RegExp) {
        assert.throws(() => selectVaults(config, vaults, writeVault), { name: 'UsageError', message: expected });
      } else {
        assert.deepEqual(selectVaults(config, vaults, writeVault), expected);
      }
    });
  }
});
