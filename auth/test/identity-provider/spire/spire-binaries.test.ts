import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { tempDir } from '@notegate/kit/testing';
import { DEFAULT_SPIRE_BIN_DIR, findSpireBinaries } from '../../../src/identity-provider/spire/spire-binaries.js';

/** Writes spire-server and spire-agent stand-ins that print `version` on stderr, as the real ones do. */
async function standIns(dir: string, version: string): Promise<void> {
  for (const name of ['spire-server', 'spire-agent']) {
    await writeFile(join(dir, name), `#!/bin/sh\necho '${version}' >&2\n`, { mode: 0o755 });
  }
}

describe('findSpireBinaries', () => {
  it('looks in .spire/bin of the repository by default (where npm run spire:build writes)', () => {
    const repository = fileURLToPath(new URL('../../../../../', import.meta.url));
    assert.equal(DEFAULT_SPIRE_BIN_DIR, join(repository, '.spire', 'bin'));
  });

  it('finds both binaries when each reports 1.15.3', async (t) => {
    const dir = tempDir(t);
    await standIns(dir, '1.15.3');
    assert.deepEqual(await findSpireBinaries(dir), {
      found: true,
      binaries: { dir, server: join(dir, 'spire-server'), agent: join(dir, 'spire-agent') },
    });
  });

  it('says which binary is missing', async (t) => {
    const dir = tempDir(t);
    const lookup = await findSpireBinaries(dir);
    assert.equal(lookup.found, false);
    assert.match(lookup.found ? '' : lookup.reason, /spire-server is missing or not executable$/);
  });

  it('refuses another version, naming what it reports', async (t) => {
    const dir = tempDir(t);
    await standIns(dir, '1.15.3-dev-unk');
    const lookup = await findSpireBinaries(dir);
    assert.match(lookup.found ? '' : lookup.reason, /spire-server reports version "1\.15\.3-dev-unk", not 1\.15\.3$/);
  });
});
