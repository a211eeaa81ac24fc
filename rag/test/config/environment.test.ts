import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { loadEnvironment, userDir } from '../../src/config/environment.js';
import { tempDir } from '../../test-support/fixtures.js';

describe('loadEnvironment', () => {
  it('loads .env from the working directory, and the real environment wins', (t) => {
    const cwd = tempDir(t);
    writeFileSync(path.join(cwd, '.env'), 'NOTEGATE_MODEL_CACHE=from-dotenv\nNOTEGATE_MODEL_HUB=http://127.0.0.1:9/\n');
    const fromFile = loadEnvironment({ cwd, env: {}, platform: 'linux', homeDir: '/home/ada' });
    assert.equal(fromFile.modelCacheDir, path.join(cwd, 'from-dotenv'));
    assert.equal(fromFile.modelHubUrl.href, 'http://127.0.0.1:9/');
    const real = loadEnvironment({
      cwd,
      env: { NOTEGATE_MODEL_CACHE: '/models' },
      platform: 'linux',
      homeDir: '/home/ada',
    });
    assert.equal(real.modelCacheDir, '/models');
  });

  it('defaults the model cache to <user data dir>/notegate/models', (t) => {
    const cwd = tempDir(t);
    const env = loadEnvironment({ cwd, env: {}, platform: 'linux', homeDir: '/home/ada' });
    assert.equal(env.modelCacheDir, '/home/ada/.local/share/notegate/models');
    assert.equal(env.modelHubUrl.href, 'https://huggingface.co/');
    assert.equal(env.userConfigDir, '/home/ada/.config/notegate');
    assert.equal(env.userDataDir, '/home/ada/.local/share/notegate');
    assert.equal(env.configFile, undefined);
    assert.equal(env.denseScan, 'auto');
  });

  it('takes NOTEGATE_CONFIG relative to the working directory, and XDG folders from the environment', (t) => {
    const cwd = tempDir(t);
    const env = loadEnvironment({
      cwd,
      env: { NOTEGATE_CONFIG: 'mine.json', XDG_CONFIG_HOME: '/cfg', XDG_DATA_HOME: '/data' },
      platform: 'linux',
      homeDir: '/home/ada',
    });
    assert.equal(env.configFile, path.join(cwd, 'mine.json'));
    assert.equal(env.userConfigDir, '/cfg/notegate');
    assert.equal(env.userDataDir, '/data/notegate');
    assert.equal(env.modelCacheDir, '/data/notegate/models');
  });

  it('refuses a malformed hub URL, naming the variable', (t) => {
    assert.throws(
      () => loadEnvironment({ cwd: tempDir(t), env: { NOTEGATE_MODEL_HUB: 'nope' }, platform: 'linux', homeDir: '/h' }),
      { name: 'UsageError', message: /^NOTEGATE_MODEL_HUB: 'nope' is not an absolute URL/ },
    );
  });

  it('takes NOTEGATE_DENSE_SCAN as auto or exact, and refuses anything else naming both', (t) => {
    const cwd = tempDir(t);
    const scanOf = (value: string) =>
      loadEnvironment({ cwd, env: { NOTEGATE_DENSE_SCAN: value }, platform: 'linux', homeDir: '/h' }).denseScan;
    assert.equal(scanOf('exact'), 'exact');
    assert.equal(scanOf('auto'), 'auto');
    assert.equal(scanOf(' '), 'auto');
    assert.throws(() => scanOf('fast'), {
      name: 'UsageError',
      message: "NOTEGATE_DENSE_SCAN: 'fast' is not allowed (allowed: auto, exact)",
    });
  });
});

describe('userDir', () => {
  it('follows each platform convention, for data and for config', () => {
    const table: [Parameters<typeof userDir>, string][] = [
      [['data', 'linux', '/home/ada', {}], '/home/ada/.local/share'],
      [['data', 'linux', '/home/ada', { XDG_DATA_HOME: '/data' }], '/data'],
      [['data', 'linux', '/home/ada', { XDG_DATA_HOME: 'relative' }], '/home/ada/.local/share'],
      [['data', 'darwin', '/Users/ada', { XDG_DATA_HOME: '/data' }], '/Users/ada/Library/Application Support'],
      [['data', 'win32', 'C:\\Users\\ada', { LOCALAPPDATA: 'D:\\Local' }], 'D:\\Local'],
      [['config', 'linux', '/home/ada', {}], '/home/ada/.config'],
      [['config', 'linux', '/home/ada', { XDG_CONFIG_HOME: '/etc/ada' }], '/etc/ada'],
      [['config', 'linux', '/home/ada', { XDG_CONFIG_HOME: ' ' }], '/home/ada/.config'],
      [['config', 'linux', '/home/ada', { XDG_CONFIG_HOME: 'cfg' }], '/home/ada/.config'],
      [['config', 'darwin', '/Users/ada', { XDG_CONFIG_HOME: '/cfg' }], '/Users/ada/Library/Application Support'],
      [['config', 'win32', 'C:\\Users\\ada', { APPDATA: 'D:\\Roaming' }], 'D:\\Roaming'],
    ];
    for (const [args, expected] of table) assert.equal(userDir(...args), expected, JSON.stringify(args));
  });
});
