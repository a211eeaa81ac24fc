/**
 * How the full-text index cuts text into terms, decided by Unicode script,
 * never by language (docs/retrieval.md#lexical-leg). A token is a maximal run
 * of letters, combining marks, numbers and private-use characters, what the
 * word table's tokenizer keeps (`unicode61 categories 'L* N* Co M*'`).
 * Scripts written without spaces between words have no word boundaries to
 * find, so their runs are cut into character n-grams: two characters where a
 * character is a syllable or a morpheme, three where it is a sound.
 */

/** One token's pieces: words of spaced scripts, and runs of scripts written without spaces. */
export type RunKind = 'word' | 'syllabic' | 'alphabetic';

/** Characters per n-gram of each unspaced kind. */
export const GRAM_LENGTH: Readonly<Record<Exclude<RunKind, 'word'>, number>> = { syllabic: 2, alphabetic: 3 };

/** Han, the Japanese kana, Bopomofo and Yi: a character is a syllable or a morpheme. */
const SYLLABIC = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Bopomofo}\p{Script=Yi}\u30fc\u3005]/u;
/** The Southeast Asian scripts written without spaces: a character is a sound. */
const ALPHABETIC =
  /[\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}\p{Script=Tai_Tham}\p{Script=New_Tai_Lue}\p{Script=Tai_Le}\p{Script=Tai_Viet}\p{Script=Javanese}\p{Script=Balinese}]/u;
const UNSPACED = new RegExp(`${SYLLABIC.source.slice(0, -1)}${ALPHABETIC.source.slice(1)}`, 'u');
const MARK = /\p{M}/u;

/** A token of the text (global: use with `match`/`replace`). */
export const TOKEN = /[\p{L}\p{M}\p{N}\p{Co}]+/gu;

export interface Run {
  readonly kind: RunKind;
  /** A word is one unit; an unspaced run has one unit per character, combining marks kept with their base. */
  readonly units: readonly string[];
}

/** True when the text holds a character of a script written without spaces (the common case is false). */
export function hasUnspacedScript(text: string): boolean {
  return UNSPACED.test(text);
}

/** The runs of one token, in order. */
export function runsOf(token: string): Run[] {
  const runs: { kind: RunKind; units: string[] }[] = [];
  for (const char of token) {
    const last = runs[runs.length - 1];
    const mark = MARK.test(char);
    const kind = mark && last ? last.kind : kindOf(char);
    if (!last || last.kind !== kind) {
      runs.push({ kind, units: [char] });
    } else if (kind === 'word' || mark) {
      last.units[last.units.length - 1] += char;
    } else {
      last.units.push(char);
    }
  }
  return runs;
}

function kindOf(char: string): RunKind {
  if (SYLLABIC.test(char)) return 'syllabic';
  if (ALPHABETIC.test(char)) return 'alphabetic';
  return 'word';
}
