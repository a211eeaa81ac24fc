import { GRAM_LENGTH, hasUnspacedScript, runsOf, TOKEN } from './scripts.js';

/**
 * The text the word table indexes for a chunk field (docs/retrieval.md#lexical-leg):
 * the field itself, except that every run of a script written without spaces
 * becomes one term per character position, the n characters starting there
 * (fewer at the run's end). So every n-gram of the run is a term, and every
 * shorter piece is the start of one, which a prefix query finds.
 * `黑豹队` → `黑豹 豹队 队`. Words of spaced scripts are left to the tokenizer.
 */
export function lexicalIndexText(text: string): string {
  if (!hasUnspacedScript(text)) return text;
  return text.replace(TOKEN, (token) =>
    runsOf(token)
      .map((run) => {
        if (run.kind === 'word') return run.units.join('');
        const n = GRAM_LENGTH[run.kind];
        const grams = run.units.map((_, i) => run.units.slice(i, i + n).join(''));
        return ` ${grams.join(' ')} `;
      })
      .join(''),
  );
}
