import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cliPath, indexChildScript, spawnNode } from '../../test-support/child.js';
import { assertConsistent, assertFtsIntact } from '../../test-support/consistency.js';
import { workspace } from '../../test-support/fixtures.js';
import { testModelCache } from '../../test-support/test-model/test-model.js';

describe('two index runs at once (two real processes)', () => {
  it('turns the second away with a clear message while the first finishes intact', async (t) => {
    const notes = Object.fromEntries(
      Array.from({ length: 5 }, (_, i) => [`note-${i}.md`, `# Note ${i}\n\nBody ${i}.\n`]),
    );
    const ws = workspace(t, { v: notes });
    const first = spawnNode(t, indexChildScript(), [ws.configPath, ws.home, testModelCache(), '--gate']);
    await first.waitForLine(/^waiting$/);

    const env = { ...process.env, HOME: ws.home, NOTEGATE_MODEL_CACHE: testModelCache() };
    const second = spawnNode(t, cliPath(), ['index', '--config', ws.configPath], { env });
    let stderr = '';
    second.process.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    assert.equal(await second.exited(), 1);
    assert.match(
      stderr,
      /another 'notegate-rag index' run is updating .*index\.sqlite .*run again once it has finished/,
    );

    first.process.stdin.write('go\n');
    await first.waitForLine(/^done /);
    assert.equal(await first.exited(), 0);
    assert.equal(assertConsistent(ws.config.indexPath, 384).files, 5);
    assertFtsIntact(ws.config.indexPath);
  });
});
