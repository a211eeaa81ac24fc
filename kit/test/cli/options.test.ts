import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatHelp, parseCommandLine } from '../../src/cli/options.js';
import { UsageError } from '../../src/cli/usage-error.js';
import { parseChoice, parseHttpUrl, parseInteger } from '../../src/cli/values.js';

const spec = {
  issuer: { type: 'string', valueName: 'URL', description: 'Issuer URI.', required: true },
  mode: { type: 'string', valueName: 'MODE', description: 'Replay mode.', default: 'reject' },
  'trusted-issuer': { type: 'string', multiple: true, valueName: 'URL', description: 'Allowlist.' },
  verbose: { type: 'boolean', description: 'Say more.' },
} as const;

describe('parseCommandLine', () => {
  it('applies defaults and collects repeated options', () => {
    const line = parseCommandLine(spec, ['--issuer', 'http://a', '--trusted-issuer', 'x', '--trusted-issuer=y']);
    assert.equal(line.options.issuer, 'http://a');
    assert.equal(line.options.mode, 'reject');
    assert.deepEqual(line.options['trusted-issuer'], ['x', 'y']);
    assert.equal(line.options.verbose, false);
  });

  it('names an unknown option', () => {
    assert.throws(() => parseCommandLine(spec, ['--issuer', 'a', '--isuer', 'b']), {
      name: 'UsageError',
      message: 'unknown option --isuer',
    });
  });

  it('names a missing required option', () => {
    assert.throws(() => parseCommandLine(spec, []), { message: '--issuer is required' });
  });

  it('names an option whose value is missing', () => {
    assert.throws(() => parseCommandLine(spec, ['--issuer']), { message: /--issuer/ });
  });

  it('refuses stray positionals unless a trailing command is accepted after --', () => {
    assert.throws(() => parseCommandLine(spec, ['--issuer', 'a', 'extra']), /unexpected argument 'extra'/);
    const line = parseCommandLine(spec, ['--issuer', 'a', '--', 'node', '--verbose', 'x'], { acceptsRest: true });
    assert.deepEqual(line.rest, ['node', '--verbose', 'x']);
    assert.equal(line.options.verbose, false);
  });

  it('gives the operands of a command that takes them, words before -- only', () => {
    const line = parseCommandLine(spec, ['rotate', '--issuer', 'a', 'keys', '--', 'x'], {
      acceptsOperands: true,
      acceptsRest: true,
    });
    assert.deepEqual([line.operands, line.rest, line.options.issuer], [['rotate', 'keys'], ['x'], 'a']);
    assert.deepEqual(parseCommandLine(spec, ['--issuer', 'a']).operands, []);
  });

  it('skips required checks when help is asked for', () => {
    assert.equal(parseCommandLine(spec, ['--help']).help, true);
  });

  it('lists every option with its default in the help', () => {
    const help = formatHelp('tool [options]', 'Does things.', spec);
    assert.match(help, /--issuer URL +Issuer URI\. \(required\)/);
    assert.match(help, /--mode MODE +Replay mode\. \(default: reject\)/);
    assert.match(help, /--trusted-issuer URL +Allowlist\. Repeatable\. \(default: none\)/);
    assert.match(help, /--verbose +Say more\. \(default: off\)/);
    assert.match(help, /--help/);
  });
});

describe('option value parsers', () => {
  it('accepts http(s) URLs and names the flag otherwise', () => {
    assert.equal(parseHttpUrl('--issuer', 'http://127.0.0.1:8080/t').pathname, '/t');
    for (const bad of ['not a url', 'ftp://x/', 'http://x/#frag', 'http://u:p@x/']) {
      assert.throws(
        () => parseHttpUrl('--issuer', bad),
        (err: unknown) => {
          return err instanceof UsageError && err.message.startsWith('--issuer:');
        },
      );
    }
  });

  it('parses bounded integers strictly', () => {
    assert.equal(parseInteger('--port', '8080', 0, 65535), 8080);
    for (const bad of ['80a', '', '1e3', '70000', '-1', '3.5']) {
      assert.throws(() => parseInteger('--port', bad, 0, 65535), /--port/);
    }
  });

  it('lists the allowed values of a choice', () => {
    assert.equal(parseChoice('--svid-replay', 'reject', ['reject', 'allow-reuse-within-lifetime']), 'reject');
    assert.throws(
      () => parseChoice('--svid-replay', 'maybe', ['reject', 'allow-reuse-within-lifetime']),
      /allowed: reject, allow-reuse-within-lifetime/,
    );
  });
});
