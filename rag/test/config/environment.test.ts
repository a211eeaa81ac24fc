import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { loadEnvironment, userDataDir } from '../../src/config/environment.js';
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
  });

  it('refuses a malformed hub URL, naming the variable', (t) => {
    assert.throws(
      () => loadEnvironment({ cwd: tempDir(t), env: { NOTEGATE_MODEL_HUB: 'nope' }, platform: 'linux', homeDir: '/h' }),
      { name: 'UsageError', message: /^NOTEGATE_MODEL_HUB: 'nope' is not an absolute URL/ },
    );
  });
});

describe('userDataDir', () => {
  it('follows each platform convention', () => {
    assert.equal(userDataDir('linux', '/home/ada', {}), '/home/ada/.local/share');
    assert.equal(userDataDir('linux', '/home/ada', { XDG_DATA_HOME: '/data' }), '/data');
    assert.equal(userDataDir('linux', '/home/ada', { XDG_DATA_HOME: 'relative' }), '/home/ada/.local/share');
    assert.equal(
      userDataDir('darwin', '/Users/ada', { XDG_DATA_HOME: '/data' }),
      '/Users/ada/Library/Application Support',
    );
  });
});
