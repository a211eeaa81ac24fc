/** A normalized term and where it came from in the original text (UTF-16 offsets). */
export interface Token {
  readonly term: string;
  readonly start: number;
  readonly end: number;
}

// Scripts written without spaces between words: indexed as overlapping character bigrams.
const CJK = '\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}';
const RUN = new RegExp(`[${CJK}]+|(?:(?![${CJK}])[\\p{L}\\p{N}\\p{M}])+`, 'gu');
const CJK_RUN = new RegExp(`^[${CJK}]`, 'u');

/**
 * Unicode-aware terms: NFKC (compatibility forms such as full-width Latin or
 * ligatures become their plain letters) and case folding (upper- then
 * lower-casing folds ß to ss and final sigma to sigma, beyond what
 * toLowerCase does). Letters, digits and combining marks form words; runs of
 * CJK characters become overlapping bigrams (plus single characters when
 * `unigrams` is set, so a one-character query still finds them).
 */
export function tokenize(text: string, { unigrams }: { unigrams: boolean }): Token[] {
  const tokens: Token[] = [];
  for (const match of text.matchAll(RUN)) {
    const start = match.index;
    // Every CJK script starts at U+1100 or above: cheaper than the regex for the common case.
    if (match[0].charCodeAt(0) >= 0x1100 && CJK_RUN.test(match[0])) pushCjkTerms(tokens, match[0], start, unigrams);
    else tokens.push({ term: foldCase(match[0]), start, end: start + match[0].length });
  }
  return tokens;
}

/** Index side: words, CJK bigrams and CJK single characters. */
export function documentTerms(text: string): Token[] {
  return tokenize(text, { unigrams: true });
}

/** Query side: words and CJK bigrams (a lone CJK character stays a unigram). */
export function queryTerms(text: string): string[] {
  return [...new Set(tokenize(text, { unigrams: false }).map((token) => token.term))];
}

export function foldCase(word: string): string {
  // ASCII is already NFKC and folds by lower-casing alone: the common case skips two normalisations.
  if (isAscii(word)) return word.toLowerCase();
  return word.normalize('NFKC').toUpperCase().toLowerCase().normalize('NFKC');
}

function pushCjkTerms(tokens: Token[], run: string, runStart: number, unigrams: boolean): void {
  const chars: { text: string; start: number }[] = [];
  let offset = runStart;
  for (const char of run) {
    chars.push({ text: char, start: offset });
    offset += char.length;
  }
  chars.forEach((char, i) => {
    const next = chars[i + 1];
    if (unigrams || chars.length === 1) {
      tokens.push({ term: foldCase(char.text), start: char.start, end: char.start + char.text.length });
    }
    if (next) {
      tokens.push({ term: foldCase(char.text + next.text), start: char.start, end: next.start + next.text.length });
    }
  });
}

function isAscii(word: string): boolean {
  for (let i = 0; i < word.length; i++) if (word.charCodeAt(i) > 0x7f) return false;
  return true;
}
