import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import {
  describeLocation,
  loadLocatedConfig,
  locateConfig,
  locateNewConfig,
} from '../../src/config/config-location.js';
import { tempDir } from '../../test-support/fixtures.js';

describe('locateConfig', () => {
  it('takes --config, then NOTEGATE_CONFIG, then the per-user config when it exists, then the repository config, else the per-user config', (t) => {
    const base = tempDir(t);
    const repo = path.join(base, 'repo');
    const inside = path.join(repo, 'auth', 'src');
    mkdirSync(path.join(repo, '.git'), { recursive: true });
    mkdirSync(inside, { recursive: true });
    const notes = path.join(base, 'notes');
    mkdirSync(notes);
    const user = { configFile: undefined, userConfigDir: path.join(base, 'cfg', 'notegate') };
    const userConfig = path.join(base, 'cfg', 'notegate', 'vaults.json');

    assert.deepEqual(locateConfig(undefined, inside, user), { file: userConfig, source: 'user' });
    mkdirSync(path.join(repo, 'rag'));
    writeFileSync(path.join(repo, 'rag', 'vaults.json'), '{}');
    assert.deepEqual(locateConfig(undefined, inside, user), {
      file: path.join(repo, 'rag', 'vaults.json'),
      source: 'repository',
    });
    assert.deepEqual(locateConfig(undefined, notes, user), { file: userConfig, source: 'user' });
    assert.deepEqual(locateNewConfig(undefined, inside, user), { file: userConfig, source: 'user' });
    mkdirSync(path.dirname(userConfig), { recursive: true });
    writeFileSync(userConfig, '{}');
    assert.deepEqual(locateConfig(undefined, inside, user), { file: userConfig, source: 'user' });
    const fromEnvironment = { ...user, configFile: path.join(base, 'env.json') };
    assert.deepEqual(locateConfig(undefined, inside, fromEnvironment), {
      file: path.join(base, 'env.json'),
      source: 'environment',
    });
    assert.deepEqual(locateConfig('my.json', notes, fromEnvironment), {
      file: path.join(notes, 'my.json'),
      source: 'flag',
    });
  });

  it('says how to make a config that is not there, naming where it was looked for', (t) => {
    const dir = tempDir(t);
    const location = locateConfig(undefined, dir, { configFile: undefined, userConfigDir: path.join(dir, 'cfg') });
    assert.equal(describeLocation(location), `${path.join(dir, 'cfg', 'vaults.json')} (the per-user config)`);
    assert.throws(() => loadLocatedConfig(location, dir), {
      name: 'UsageError',
      message: /^no config at .*cfg\/vaults\.json \(the per-user config\): make one with 'notegate-rag init DIR'/,
    });
  });
});
