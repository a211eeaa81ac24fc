import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { loadRagConfig } from '../../src/config/load-config.js';
import { tempDir, writeConfig } from '../../test-support/fixtures.js';

/** A repository and a fake home, with folders made on demand. */
function layout(t: import('node:test').TestContext) {
  const base = tempDir(t);
  const root = path.join(base, 'repo');
  const home = path.join(base, 'home');
  mkdirSync(path.join(root, '.git'), { recursive: true });
  const folder = (...parts: string[]) => {
    const dir = path.join(...parts);
    mkdirSync(dir, { recursive: true });
    return dir;
  };
  const config = (value: unknown) => {
    const file = path.join(root, 'rag', 'vaults.json');
    writeConfig(file, value);
    return file;
  };
  return { base, root, home, folder, config };
}

function usageMessage(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    assert.equal(err instanceof Error && err.name, 'UsageError');
    return err instanceof Error ? err.message : '';
  }
  assert.fail('expected a UsageError');
}

describe('loadRagConfig', () => {
  it('resolves relative paths against the repository root that contains the config', (t) => {
    const { root, home, folder, config } = layout(t);
    folder(root, 'demo', 'vaults', 'handbook');
    const loaded = loadRagConfig(config({ vaults: [{ id: 'handbook', path: 'demo/vaults/handbook' }] }), home);
    assert.equal(loaded.repoRoot, root);
    assert.equal(loaded.vaults[0]?.realPath, path.join(root, 'demo', 'vaults', 'handbook'));
    assert.equal(loaded.indexPath, path.join(root, '.notegate', 'index.sqlite'));
    assert.deepEqual(loaded.diode.allowedRoots, [root]);
    assert.ok(Object.isFrozen(loaded));
  });

  it('names a missing vault folder and a missing config file', (t) => {
    const { home, config, base } = layout(t);
    const message = usageMessage(() => loadRagConfig(config({ vaults: [{ id: 'a', path: 'nowhere' }] }), home));
    assert.match(message, /vaults\[0\]\.path: folder .*nowhere does not exist/);
    assert.match(
      usageMessage(() => loadRagConfig(path.join(base, 'none.json'), home)),
      /none\.json does not exist \(--config\)/,
    );
  });

  it('names invalid JSON', (t) => {
    const { home, root } = layout(t);
    const file = path.join(root, 'bad.json');
    writeFileSync(file, '{ "vaults": [ }');
    assert.match(
      usageMessage(() => loadRagConfig(file, home)),
      /bad\.json: not valid JSON/,
    );
  });

  it('refuses a vault outside allowed_roots, naming the diode policy and the path', (t) => {
    const { base, home, folder, config } = layout(t);
    const outside = folder(base, 'elsewhere', 'notes');
    const message = usageMessage(() => loadRagConfig(config({ vaults: [{ id: 'x', path: outside }] }), home));
    assert.match(message, new RegExp(`vaults\\[0\\]\\.path: diode policy: ${outside} is outside allowed_roots`));
  });

  it('accepts a vault under an explicit allowed root beside the repository', (t) => {
    const { base, home, folder, config } = layout(t);
    const notes = folder(base, 'notes');
    folder(notes, 'team');
    const loaded = loadRagConfig(
      config({ allowed_roots: ['.', notes], vaults: [{ id: 't', path: path.join(notes, 'team') }] }),
      home,
    );
    assert.equal(loaded.vaults[0]?.realPath, path.join(notes, 'team'));
  });

  it('always refuses the iCloud Drive container, even when allowed_roots contains it', (t) => {
    const { home, folder, config } = layout(t);
    const obsidian = folder(home, 'Library', 'Mobile Documents', 'iCloud~md~obsidian', 'Documents', 'Personal');
    const cloudStorage = folder(home, 'Library', 'CloudStorage', 'iCloudDrive', 'Notes');
    const message = usageMessage(() =>
      loadRagConfig(
        config({
          allowed_roots: ['.', home],
          vaults: [
            { id: 'personal', path: obsidian },
            { id: 'drive', path: cloudStorage },
          ],
        }),
        home,
      ),
    );
    assert.match(
      message,
      /vaults\[0\]\.path: diode policy: .*Mobile Documents\/iCloud~md~obsidian\/Documents\/Personal is inside the iCloud Drive container/,
    );
    assert.match(message, /vaults\[1\]\.path: diode policy: .*CloudStorage\/iCloudDrive\/Notes is inside/);
  });

  it('refuses a vault that is a symlink into the container (realpath is checked)', (t) => {
    const { root, home, folder, config } = layout(t);
    const personal = folder(home, 'Library', 'Mobile Documents', 'iCloud~md~obsidian', 'Documents', 'P');
    folder(root, 'vaults');
    symlinkSync(personal, path.join(root, 'vaults', 'innocent'));
    const message = usageMessage(() =>
      loadRagConfig(config({ allowed_roots: ['.', home], vaults: [{ id: 'i', path: 'vaults/innocent' }] }), home),
    );
    assert.match(
      message,
      /vaults\[0\]\.path: diode policy: .*iCloud~md~obsidian.* is inside the iCloud Drive container/,
    );
  });

  it('refuses a vault inside the container even when the folder does not exist here', (t) => {
    const { home, config } = layout(t);
    const message = usageMessage(() =>
      loadRagConfig(
        config({ vaults: [{ id: 'p', path: path.join(home, 'Library/Mobile Documents/iCloud~md~obsidian') }] }),
        home,
      ),
    );
    assert.match(message, /diode policy/);
    assert.doesNotMatch(message, /does not exist/);
  });

  it('refuses an index_path inside the container', (t) => {
    const { root, home, folder, config } = layout(t);
    folder(root, 'v');
    const message = usageMessage(() =>
      loadRagConfig(
        config({
          index_path: path.join(home, 'Library/Mobile Documents/idx.sqlite'),
          vaults: [{ id: 'v', path: 'v' }],
        }),
        home,
      ),
    );
    assert.match(message, /^.*\n {2}index_path: diode policy: /);
  });
});
