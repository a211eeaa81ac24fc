import assert from 'node:assert/strict';
import { cpSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { cliPath, runNode, spawnNode } from '../../test-support/child.js';
import { tempDir } from '../../test-support/fixtures.js';

const REPOSITORY = fileURLToPath(new URL('../../../../', import.meta.url));

/** The shell lines of the README's block of first commands in a clone, comments dropped. */
function readmeBlock(): string[] {
  const readme = readFileSync(path.join(REPOSITORY, 'README.md'), 'utf8');
  const block = /compile what changed\. For example:\n\n```sh\n([\s\S]*?)```/.exec(readme)?.[1];
  assert.ok(block, 'the README has its block of first commands in a clone');
  return block
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter((line) => line !== '');
}

describe("the README's first commands", () => {
  it('work as written on a machine with no model hub and no model cache, in a fresh home', async (t) => {
    // A copy of what the block reads (the demo config and vault), as a repository of its own.
    const root = tempDir(t);
    mkdirSync(path.join(root, '.git'));
    cpSync(path.join(REPOSITORY, 'rag', 'vaults.json'), path.join(root, 'rag', 'vaults.json'));
    cpSync(path.join(REPOSITORY, 'demo', 'vaults', 'handbook'), path.join(root, 'demo', 'vaults', 'handbook'), {
      recursive: true,
    });
    const home = tempDir(t);
    const env = {
      PATH: process.env.PATH,
      HOME: home,
      // Nothing listens there: any download attempt would fail.
      NOTEGATE_MODEL_HUB: 'http://127.0.0.1:9/',
      // The block names port 8765; the test lets serve pick a free one and sends curl's request there.
      NOTEGATE_SERVER_PORT: '0',
    };
    const lines = readmeBlock();
    assert.deepEqual(
      lines.map((line) => line.split(' ').slice(0, 2).join(' ')),
      ['npx notegate-rag', 'npx notegate-rag', 'npx notegate-rag', 'curl -s'],
    );
    let served: URL | undefined;
    for (const line of lines) {
      const words = line.split(' ');
      if (words[0] === 'curl') {
        const body = /-d '(.*)'$/.exec(line)?.[1];
        assert.ok(served && body !== undefined, line);
        const target = new URL(/(localhost:\d+\S*)/.exec(line)?.[1]?.replace(/^localhost:\d+/, served.origin) ?? '');
        const response = await fetch(target, { method: 'POST', body });
        assert.equal(response.status, 200, line);
        const { hits } = (await response.json()) as { hits: { path: string }[] };
        assert.equal(hits[0]?.path, 'engineering/key-rotation.md', line);
        continue;
      }
      const [, , command, ...args] = words;
      const script = cliPath();
      if (command === 'serve') {
        const server = spawnNode(t, script, [command, ...args], { env, cwd: root });
        served = new URL((await server.waitForLine(/^listening on /)).replace(/^listening on /, ''));
        continue;
      }
      const result = await runNode(
        t,
        script,
        [command ?? '', ...args].filter((word) => word !== ''),
        { env, cwd: root },
      );
      assert.equal(result.code, 0, `${line}\n${result.stderr}`);
      assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace');
      if (command === 'index') assert.match(result.stdout, /^handbook: \d+ new/);
      if (command === 'status') assert.match(result.stdout, /model {3}none: a lexical-only index/);
    }
  });
});
