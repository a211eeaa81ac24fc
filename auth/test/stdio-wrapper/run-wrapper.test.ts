import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { TestContext } from 'node:test';
import { describe, it } from 'node:test';
import { waitFor } from '@notegate/kit/testing';
import { refused, transportFailed } from '../../src/agent/agent-errors.js';
import type { AccessToken } from '../../src/agent/token-request.js';
import type { WrapperConfig } from '../../src/stdio-wrapper/run-wrapper.js';
import { runWrapper } from '../../src/stdio-wrapper/run-wrapper.js';
import { FakeTimers } from '../support/fake-timers.js';
import { ManualClock } from '../support/manual-clock.js';
import { type ChildRecord, WRAPPER_CHILD } from '../support/wrapper-child.js';

/**
 * runWrapper in this process with real child processes, a manual clock, fake timers, a scripted token
 * source and signals from an emitter; TMPDIR points at a directory the test checks is left empty.
 */
async function wrapperHarness(t: TestContext, childArgs: string[]) {
  const root = await mkdtemp(join(tmpdir(), 'run-wrapper-test-'));
  const previousTmp = process.env.TMPDIR;
  process.env.TMPDIR = root;
  t.after(async () => {
    if (previousTmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previousTmp;
    await rm(root, { recursive: true, force: true });
  });
  const recordPath = join(root, 'record.json');
  const record = (): ChildRecord | undefined =>
    existsSync(recordPath) ? JSON.parse(readFileSync(recordPath, 'utf8')) : undefined;
  // A failed assertion must not leave the child running.
  t.after(() => {
    const pid = record()?.pid;
    if (pid !== undefined) killQuietly(pid);
  });
  const clock = new ManualClock();
  const timers = new FakeTimers(clock);
  const signals = new EventEmitter();
  const logs: string[] = [];
  let issued = 0;
  const state = { failing: undefined as Error | undefined, fetches: 0 };
  const config: WrapperConfig = {
    command: process.execPath,
    args: ['-e', WRAPPER_CHILD, recordPath, ...childArgs],
    fetchToken: async (): Promise<AccessToken> => {
      state.fetches += 1;
      if (state.failing) throw state.failing;
      issued += 1;
      return {
        accessToken: `token-${issued}`,
        expiresAt: new Date(clock.nowMs + 300_000),
        issuer: 'http://127.0.0.1:8080',
        scope: 'notes:read',
        resource: 'http://127.0.0.1:8081/mcp',
      };
    },
    refreshMarginMs: 120_000,
    tokenFilePath: undefined,
    tokenFileEnv: 'MCP_ACCESS_TOKEN_FILE',
    exportTokenEnv: undefined,
    gracePeriodMs: 5_000,
    env: process.env,
    log: (line) => logs.push(line),
    clock: clock.now,
    timers,
    signals: {
      on: (signal, listener) => signals.on(signal, listener),
      off: (signal, listener) => signals.off(signal, listener),
    },
  };
  return {
    config,
    timers,
    logs,
    state,
    /** Sends a signal to the wrapper, as the process would. */
    signal: (name: NodeJS.Signals) => signals.emit(name, name),
    record,
    ready: () => waitFor('the child to start', () => (existsSync(recordPath) ? true : undefined)),
    /** Nothing the wrapper created is left in TMPDIR. */
    leftovers: () => readdirSync(root).filter((name) => name !== 'record.json'),
  };
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

describe('mcp-svid-stdio run', () => {
  it('hands the child the path of a 0600 token file and exits with its exit code, leaving nothing behind', async (t) => {
    const h = await wrapperHarness(t, ['exit', '7']);
    assert.equal(await runWrapper(h.config), 7);
    const record = h.record();
    assert.equal(record?.mode, '600');
    assert.equal(record?.token, 'token-1');
    assert.equal(record?.exported, null);
    assert.match(record?.path ?? '', /mcp-svid-stdio-[^/]+\/access-token$/);
    assert.equal(existsSync(dirname(record?.path ?? '/')), false);
    assert.deepEqual(h.leftovers(), []);
    assert.deepEqual(h.logs, []);
  });

  it('exits with 128 + n when the child dies of signal n', async (t) => {
    const h = await wrapperHarness(t, ['crash']);
    assert.equal(await runWrapper(h.config), 128 + 9);
    assert.deepEqual(h.leftovers(), []);
  });

  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    it(`forwards ${signal} to the child and exits with the code the child chose`, async (t) => {
      const h = await wrapperHarness(t, ['trap', '42']);
      const run = runWrapper(h.config);
      await h.ready();
      h.signal(signal);
      assert.equal(await run, 42);
      assert.equal(h.record()?.signal, signal);
      assert.deepEqual(h.leftovers(), []);
    });
  }

  it('exits with 143 when a forwarded SIGTERM kills the child', async (t) => {
    const h = await wrapperHarness(t, ['wait']);
    const run = runWrapper(h.config);
    await h.ready();
    h.signal('SIGTERM');
    assert.equal(await run, 143);
    assert.deepEqual(h.leftovers(), []);
  });

  it('replaces the token file before the token expires', async (t) => {
    const h = await wrapperHarness(t, ['wait']);
    const run = runWrapper(h.config);
    await h.ready();
    const path = h.record()?.path ?? '';
    // The file is written on the thread pool: wait for it rather than for the fake timers alone, and then
    // for the scheduler to take the new token (its expiry timer 300 s out). The file shows the new token
    // before the write's folder sync returns; moving the clock on before that would let the first
    // token's expiry timer fire.
    const installed = async (token: string) => {
      await waitFor(`the file to hold ${token}`, () => readFileSync(path, 'utf8') === token);
      await waitFor(`the refresh of ${token} to be armed`, () => h.timers.pendingDelays().includes(300_000));
    };
    await h.timers.advanceMs(180_000);
    await installed('token-2');
    await h.timers.advanceMs(180_000);
    await installed('token-3');
    h.signal('SIGTERM');
    assert.equal(await run, 143);
  });

  it('on expiry without a refresh: deletes the file, then SIGTERM, SIGKILL after the grace period, and fails', async (t) => {
    const h = await wrapperHarness(t, ['ignore']);
    let settled = false;
    const run = runWrapper(h.config).finally(() => {
      settled = true;
    });
    await h.ready();
    h.state.failing = transportFailed('token_request', 'temporarily_unavailable', 'HTTP 503');
    await h.timers.advanceMs(300_000);
    await waitFor('SIGTERM to reach the child', () => h.record()?.signal);
    assert.equal(h.record()?.fileExists, false, 'the file was deleted before the child was stopped');
    assert.equal(existsSync(h.record()?.path ?? ''), false);
    await h.timers.advanceMs(4_999);
    assert.equal(settled, false, 'the child ignores SIGTERM and is still running within the grace period');
    await h.timers.advanceMs(1);
    assert.equal(await run, 5, 'the exit code of the last refresh failure (transport)');
    assert.ok(h.state.fetches > 5);
    assert.ok(h.logs.some((line) => /^token refresh failed .*temporarily_unavailable.*retrying in/.test(line)));
    assert.match(
      h.logs.at(-1) ?? '',
      /^the access token expired at .* without a successful refresh .*deleted .*access-token, stopping /,
    );
    assert.deepEqual(h.leftovers(), []);
  });

  it('puts the token in the environment only when asked, with a warning that it is never refreshed', async (t) => {
    const h = await wrapperHarness(t, ['exit', '0']);
    assert.equal(await runWrapper({ ...h.config, exportTokenEnv: 'MCP_ACCESS_TOKEN' }), 0);
    assert.equal(h.record()?.exported, 'token-1');
    assert.equal(h.logs.length, 1);
    assert.match(
      h.logs[0] ?? '',
      /^warning: --export-token-env MCP_ACCESS_TOKEN puts the access token in the child's environment/,
    );
    assert.match(h.logs[0] ?? '', /never refreshed/);
  });

  it('exits 127 when the command does not exist, leaving nothing behind', async (t) => {
    const h = await wrapperHarness(t, []);
    assert.equal(await runWrapper({ ...h.config, command: join(tmpdir(), 'no-such-command-here') }), 127);
    assert.match(h.logs[0] ?? '', /cannot start .*ENOENT/);
    assert.deepEqual(h.leftovers(), []);
  });

  it('does not start the child when the first token is refused, and exits with the refusal class', async (t) => {
    const h = await wrapperHarness(t, ['exit', '0']);
    h.state.failing = refused('issuer_selection', 'issuer_refused', 'none of the issuers is trusted');
    assert.equal(await runWrapper(h.config), 3);
    assert.equal(h.record(), undefined);
    assert.match(h.logs[0] ?? '', /^cannot get an access token: issuer_selection: issuer_refused: /);
    assert.deepEqual(h.leftovers(), []);
  });

  it('stops at once on a signal that arrives while the first token is still being fetched', async (t) => {
    const h = await wrapperHarness(t, ['exit', '0']);
    const run = runWrapper({ ...h.config, fetchToken: () => new Promise<AccessToken>(() => undefined) });
    await waitFor('the private directory', () => h.leftovers().length === 1);
    h.signal('SIGINT');
    assert.equal(await run, 130);
    assert.equal(h.record(), undefined);
    assert.deepEqual(h.leftovers(), []);
  });
});
