import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { shellWords } from '@notegate/kit';
import { parseAuditLine } from '../../src/demo/audit-trail.js';
import type { Layout, ScenarioResult } from '../../src/demo/report.js';
import { crashReport, passed, scenarioBody, summary } from '../../src/demo/report.js';
import { reportWidth, terminalStyle, wantsColour } from '../../src/demo/style.js';
import { wrap } from '../../src/demo/text-wrap.js';

const DENY_LINE =
  '{"timestamp":"2026-11-22T08:30:01.250Z","component":"mcp_server:notes-b","spiffe_id":"spiffe://example.org/agent",' +
  '"tool":"notes.search","decision":"deny","reason":"invalid_token: The access token is not meant for this resource","token_jti":"9f"}';

function result(pass: boolean): ScenarioResult {
  return {
    scenario: {
      title: 'Stolen token',
      expected: 'notes-b refuses the token.',
      run: async () => ({ steps: [], checks: [] }),
    },
    outcome: {
      steps: [
        {
          title: 'agent → notes-a',
          run: {
            args: ['agent', '--arguments', '{"q":"it\'s"}'],
            code: 0,
            stdout: '{"a":1}\n',
            stderr: '',
            durationMs: 420,
          },
          happened: ['exit 0'],
        },
      ],
      checks: [{ label: 'notes-b refused the replayed token', pass }],
    },
    audit: [parseAuditLine(DENY_LINE)],
    durationMs: 500,
  };
}

const layout = (verbose: boolean, colour = false): Layout => ({ style: terminalStyle(colour), width: 100, verbose });

describe('demo report', () => {
  it('shows a compact audit line by default and the raw line with every field under --verbose', () => {
    const compact = scenarioBody(result(true), layout(false));
    assert.match(
      compact,
      /^ {2}08:30:01\.250 {2}mcp_server:notes-b {2}deny {3}spiffe:\/\/example\.org\/agent {2}notes\.search$/m,
    );
    assert.match(compact, /^ {16}invalid_token: The access token is not meant for this resource$/m);
    assert.doesNotMatch(compact, /token_jti|\$ notegate/);
    const verbose = scenarioBody(result(true), layout(true));
    assert.ok(verbose.includes(`  ${DENY_LINE}\n`));
    assert.ok(verbose.includes(`      $ notegate agent --arguments '{"q":"it'\\''s"}'\n`));
    assert.ok(verbose.includes('      stdout: {"a":1}\n'));
  });

  it('says PASS only when every check passed, and FAIL in the summary otherwise', () => {
    assert.equal(passed(result(true)), true);
    assert.equal(passed(result(false)), false);
    assert.match(scenarioBody(result(false), layout(false)), /^ {2}FAIL {2}notes-b refused the replayed token$/m);
    assert.match(
      summary([result(true), result(false)], 3_000, layout(false)),
      /1 of 2 scenarios did not behave as expected\./,
    );
  });

  it('colours only when asked to', () => {
    assert.ok(scenarioBody(result(true), layout(false, true)).includes('\u001b[32m'));
    assert.ok(!scenarioBody(result(true), layout(false, false)).includes('\u001b['));
    assert.equal(wantsColour({ isTty: true, noColorFlag: false, noColorEnv: undefined }), true);
    assert.equal(wantsColour({ isTty: true, noColorFlag: false, noColorEnv: '' }), true);
    assert.equal(wantsColour({ isTty: true, noColorFlag: false, noColorEnv: '1' }), false);
    assert.equal(wantsColour({ isTty: true, noColorFlag: true, noColorEnv: undefined }), false);
    assert.equal(wantsColour({ isTty: false, noColorFlag: false, noColorEnv: undefined }), false);
  });

  it('wraps at spaces with a hanging indent, keeping long words whole', () => {
    assert.deepEqual(wrap('aa bb cc dd', 8, '> ', '  '), ['> aa bb', '  cc dd']);
    assert.deepEqual(wrap('http://127.0.0.1:4000/a/very/long/path x', 10, '', ''), [
      'http://127.0.0.1:4000/a/very/long/path',
      'x',
    ]);
    assert.deepEqual([reportWidth(undefined), reportWidth(40), reportWidth(80), reportWidth(300)], [100, 60, 80, 100]);
  });

  it('quotes shell words so that sh reads back the same words', async () => {
    const words = ['plain', 'unix:///tmp/a b/agent.sock', '{"title":"it\'s"}', '', '$HOME', 'a;b'];
    const { stdout } = await promisify(execFile)('sh', ['-c', `printf '%s\\n' ${shellWords(words)}`]);
    assert.deepEqual(stdout.split('\n').slice(0, -1), words);
    assert.equal(shellWords(['--resource', 'http://127.0.0.1:8081/mcp']), '--resource http://127.0.0.1:8081/mcp');
  });

  it('keeps an audit line it cannot parse, raw', () => {
    const entry = parseAuditLine('not json');
    assert.equal(entry.component, 'unparsed');
    assert.equal(entry.raw, 'not json');
    assert.equal(parseAuditLine('{"timestamp":1}').component, 'unparsed');
  });

  it('names a server that ended during the run, with the end of its stderr', () => {
    const ended = {
      name: 'notes-b',
      pid: 1,
      output: { stdout: 'listening on http://127.0.0.1:1/mcp\n', stderr: 'a\nnotes-server: boom\n' },
      exited: Promise.resolve(1),
      endedWith: 1,
      onLine: () => undefined,
      onOutput: () => () => undefined,
    };
    assert.equal(
      crashReport([ended], layout(false)),
      '\nnotes-b exited (1) during the run:\n    a\n    notes-server: boom\n',
    );
    assert.equal(crashReport([], layout(false)), '');
    const spireAgent = {
      ...ended,
      name: 'spire-agent (shared)',
      output: { stdout: 'level=error msg="x"\n', stderr: '' },
    };
    assert.equal(
      crashReport([spireAgent], layout(false)),
      '\nspire-agent (shared) exited (1) during the run:\n    level=error msg="x"\n',
    );
  });
});
