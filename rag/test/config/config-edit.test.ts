import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import {
  checkNewVaults,
  newVaultFolder,
  vaultIdOf,
  vaultIdProblem,
  withoutVault,
  withVault,
} from '../../src/config/config-edit.js';
import { loadRagConfig } from '../../src/config/load-config.js';
import { tempDir, writeConfig } from '../../test-support/fixtures.js';

/** Folders `names` under a fresh base, a fake home beside them, and a config over the first ones. */
function layout(t: TestContext, names: readonly string[]) {
  const base = tempDir(t);
  const home = path.join(base, 'home');
  mkdirSync(home);
  for (const name of names) mkdirSync(path.join(base, name), { recursive: true });
  const file = path.join(base, 'cfg', 'vaults.json');
  const at = (name: string) => path.join(base, name);
  return { base, home, file, at };
}

describe('vaultIdOf', () => {
  it('makes an id of a folder name', () => {
    const table: [string, string][] = [
      ['notes', 'notes'],
      ['My Notes', 'my-notes'],
      ['Übung & Praxis', 'ubung-praxis'],
      ['--work--', 'work'],
      ['_private_', 'private'],
      ['2026 journal', '2026-journal'],
      ['笔记', 'notes'],
      ['...', 'notes'],
      ['a'.repeat(70), 'a'.repeat(64)],
      [`${'b'.repeat(63)} c`, 'b'.repeat(63)],
    ];
    for (const [name, id] of table) {
      assert.equal(vaultIdOf(name), id, name);
      assert.equal(vaultIdProblem(id), undefined, id);
    }
  });

  it('names what is wrong with an id given by hand', () => {
    assert.match(vaultIdProblem('Work') ?? '', /^'Work' is not a valid vault id \(must match/);
    assert.match(vaultIdProblem('-x') ?? '', /not a valid vault id/);
  });
});

describe('newVaultFolder', () => {
  it('takes an existing folder, its id from its name or as given', (t) => {
    const { base, home } = layout(t, ['My Notes']);
    assert.deepEqual(newVaultFolder('My Notes', base, [home]), {
      id: 'my-notes',
      absolute: path.join(base, 'My Notes'),
      realPath: path.join(base, 'My Notes'),
    });
    assert.equal(newVaultFolder(path.join(base, 'My Notes'), '/', [home], 'mine').id, 'mine');
  });

  it('refuses a missing folder, the personal cloud drive, and a folder holding the home folder, naming it', (t) => {
    const { base, home } = layout(t, []);
    const icloud = path.join(home, 'Library', 'Mobile Documents', 'iCloud~md~obsidian');
    mkdirSync(icloud, { recursive: true });
    assert.throws(() => newVaultFolder('gone', base, [home]), { message: /^gone: folder .*gone does not exist$/ });
    assert.throws(() => newVaultFolder(icloud, base, [home]), {
      message: /: diode policy: .*Mobile Documents\/iCloud~md~obsidian is inside the iCloud Drive container/,
    });
    // Checked before the folder is looked up: a personal-drive path is refused even when absent.
    assert.throws(() => newVaultFolder(path.join(icloud, 'absent'), base, [home]), { message: /diode policy/ });
    assert.throws(() => newVaultFolder(base, base, [home]), { message: /holds your home folder/ });
    assert.throws(() => newVaultFolder('home', base, [home]), { message: /^home: .* holds your home folder/ });
  });
});

describe('checkNewVaults', () => {
  it('refuses one id for two folders, and one folder twice', (t) => {
    const { base, home, at } = layout(t, ['a/notes', 'b/notes']);
    const a = newVaultFolder(at('a/notes'), base, [home]);
    const b = newVaultFolder(at('b/notes'), base, [home]);
    assert.throws(() => checkNewVaults([a, b]), {
      message:
        /^vault id 'notes' would name both .*a\/notes and .*b\/notes: init with one, then 'notegate-rag add .*b\/notes --id ID'$/,
    });
    assert.throws(() => checkNewVaults([a, { ...a, id: 'other' }]), { message: /the same folder as/ });
    checkNewVaults([a, { ...b, id: 'notes-2' }]);
  });
});

describe('withVault', () => {
  it('adds the vault and its folder to allowed_roots, keeping the other keys and vaults as written', (t) => {
    const { base, home, file, at } = layout(t, ['notes', 'work']);
    const json = {
      embed_model: 'none',
      allowed_roots: [at('notes')],
      index_path: at('i.sqlite'),
      vaults: [{ id: 'notes', path: at('notes'), exclude: ['templates/'] }],
    };
    writeConfig(file, json);
    const next = withVault(json, newVaultFolder('work', base, [home]), loadRagConfig(file, home));
    assert.deepEqual(next, {
      ...json,
      allowed_roots: [at('notes'), at('work')],
      vaults: [...json.vaults, { id: 'work', path: at('work') }],
    });
  });

  it('leaves allowed_roots as they are when one covers the folder, and writes "." for an absent key', (t) => {
    const { base, home, file, at } = layout(t, ['notes/sub', 'other']);
    mkdirSync(path.join(base, '.git'));
    const covered = { allowed_roots: [at('notes')], vaults: [{ id: 'notes', path: 'notes' }] };
    writeConfig(file, covered);
    const sub = withVault(covered, newVaultFolder('notes/sub', base, [home]), loadRagConfig(file, home));
    assert.deepEqual(sub.allowed_roots, [at('notes')]);
    const implicit = { vaults: [{ id: 'notes', path: 'notes' }] };
    writeConfig(file, implicit);
    const outside = tempDir(t);
    const added = withVault(implicit, newVaultFolder(outside, base, [home]), loadRagConfig(file, home));
    assert.deepEqual(added.allowed_roots, ['.', outside]);
  });

  it('refuses an id or a folder the config has, naming the vault', (t) => {
    const { base, home, file, at } = layout(t, ['notes', 'x/notes']);
    const json = { allowed_roots: [base], vaults: [{ id: 'notes', path: at('notes') }] };
    writeConfig(file, json);
    const config = loadRagConfig(file, home);
    assert.throws(() => withVault(json, newVaultFolder('x/notes', base, [home]), config), {
      message: `vault id 'notes' is taken by ${at('notes')}; choose another with --id`,
    });
    assert.throws(() => withVault(json, newVaultFolder('notes', base, [home], 'again'), config), {
      message: `${at('notes')} is already the vault 'notes'`,
    });
  });
});

describe('withoutVault', () => {
  const json = {
    embed_model: 'none',
    allowed_roots: ['/n/a', '/n/b', '/n'],
    vaults: [
      { id: 'a', path: '/n/a' },
      { id: 'b', path: '/n/b', exclude: ['archive/**'] },
      { id: 'c', path: '/n/b/c' },
    ],
  };

  it('drops the vault, and its folder from allowed_roots unless another vault lies under it; the others stay as written', () => {
    assert.deepEqual(withoutVault(json, 'a', '/cfg.json', '/'), {
      ...json,
      allowed_roots: ['/n/b', '/n'],
      vaults: json.vaults.slice(1),
    });
    assert.deepEqual(withoutVault(json, 'b', '/cfg.json', '/').allowed_roots, ['/n/a', '/n/b', '/n']);
    const implicit = { vaults: json.vaults };
    assert.deepEqual(withoutVault(implicit, 'c', '/cfg.json', '/'), { vaults: json.vaults.slice(0, 2) });
  });

  it('refuses an unknown id listing the vaults, and the last vault', () => {
    assert.throws(() => withoutVault(json, 'd', '/cfg.json', '/'), {
      message: "no vault 'd' in /cfg.json (vaults: a, b, c)",
    });
    assert.throws(() => withoutVault({ vaults: [{ id: 'a', path: '/n/a' }] }, 'a', '/cfg.json', '/'), {
      message: /^'a' is the only vault of \/cfg\.json, and a config needs one/,
    });
  });
});
