import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeTerminalControl, firstTerminalControl, terminalJson, terminalText } from '../src/terminal-text.js';

describe('terminalText', () => {
  const cases: [string, string, string][] = [
    ['plain text, accents and CJK', 'Schlüssel 密钥 ключ — ok', 'Schlüssel 密钥 ключ — ok'],
    ['an emoji (a surrogate pair)', 'note 😀', 'note 😀'],
    ['clear screen (CSI 2J)', 'a\x1b[2Jb', 'a\\x1b[2Jb'],
    ['the window title (OSC 0)', '\x1b]0;pwned\x07', '\\x1b]0;pwned\\x07'],
    ['the clipboard (OSC 52)', '\x1b]52;c;cm0gLXJmIH4=\x1b\\', '\\x1b]52;c;cm0gLXJmIH4=\\x1b\\'],
    ['C1 CSI and OSC', 'a\u009b2Jb\u009d0;t\u009c', 'a\\x9b2Jb\\x9d0;t\\x9c'],
    ['DEL, BS and CR', 'ab\x7f\x08\rc', 'ab\\x7f\\x08\\x0dc'],
    ['tab and line feed', 'a\tb\nc', 'a\\x09b\\x0ac'],
    ['right-to-left override and isolates', 'evil\u202Egpj.md \u2066x\u2069', 'evil\\u202egpj.md \\u2066x\\u2069'],
    ['the marks LRM, RLM, ALM', '\u200e\u200f\u061c', '\\u200e\\u200f\\u061c'],
    ['a lone surrogate', 'a\ud800b\udfffc', 'a\\ud800b\\udfffc'],
  ];
  for (const [name, input, expected] of cases) {
    it(`shows ${name} ${input === expected ? 'unchanged' : 'as escapes'}`, () => {
      assert.equal(terminalText(input), expected);
    });
  }

  it('keeps line feeds as line breaks when asked, and still shows every other control', () => {
    assert.equal(terminalText('one\ntwo\r\x1b[2J', { keepLineBreaks: true }), 'one\ntwo\\x0d\\x1b[2J');
  });
});

describe('firstTerminalControl and describeTerminalControl', () => {
  it('names the first character a terminal would act on, or nothing', () => {
    assert.equal(firstTerminalControl('a/b\u202e.md\x1b'), '\u202e');
    assert.equal(firstTerminalControl('a\ud800'), '\ud800');
    assert.equal(firstTerminalControl('notes/plan 😀.md'), undefined);
    assert.equal(describeTerminalControl('\u202e'), 'the bidirectional formatting character U+202E');
    assert.equal(describeTerminalControl('\x1b'), 'the control character U+001B');
    assert.equal(describeTerminalControl('\u0085'), 'the control character U+0085');
    assert.equal(describeTerminalControl('\udc00'), 'the unpaired surrogate U+DC00');
  });
});

describe('terminalJson', () => {
  const value = {
    title: 'a\x1b]52;c;eA==\x07b',
    path: 'x\u202e\u009b.md',
    del: '\x7f',
    lone: '\ud800',
    text: 'Schlüssel 密钥 😀',
  };

  it('is the same JSON value, with no raw control, bidirectional or surrogate character in the text', () => {
    const json = terminalJson(value, 2);
    assert.deepEqual(JSON.parse(json), value);
    assert.equal(firstTerminalControl(json.replaceAll('\n', '')), undefined);
    assert.match(json, /\\u202e\\u009b/);
    assert.match(json, /Schlüssel 密钥 😀/);
  });

  it('is JSON.stringify where nothing needs escaping', () => {
    const plain = { a: 'ok', b: [1, 2], c: 'é' };
    assert.equal(terminalJson(plain), JSON.stringify(plain));
    assert.equal(terminalJson(plain, 2), JSON.stringify(plain, null, 2));
  });
});
