/**
 * The test model's tokenizer: a BERT-style WordPiece tokenizer (lower-casing
 * normalizer, whitespace and punctuation pre-tokenizer, `[CLS] … [SEP]` around
 * every input) over a vocabulary built here. The vocabulary is small but
 * covers any ASCII text: whole common words, then letter pairs and single
 * characters, so an unknown English word costs about one token per two letters
 * and only words with characters outside ASCII become `[UNK]`.
 */

const SPECIAL_TOKENS = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'] as const;
const [PAD, UNK, CLS, SEP, MASK] = SPECIAL_TOKENS;

/** Marks a piece that continues a word (not at its start). */
const CONTINUATION = '##';

/** Words that take one token each; the rest of the vocabulary spells any other word. */
const WHOLE_WORDS = [
  'the of and to in is it that for on with as was be by at or this are from not but have an',
  'they which one you were all we can her has there their been if more when will would who so no',
  'hello world note notes key keys index search query passage vault file files text token tokens',
  'part version line lines code title heading section chunk model server meeting plan project team',
  'secret access read write day week month year time work people use new first last other about',
].flatMap((line) => line.split(' '));

/** Frequent endings, so inflected forms stay short. */
const WORD_ENDINGS = ['ing', 'tion', 'ment', 'ness', 'able', 'ed', 'es', 'er', 'ly', 's'];

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';
const DIGITS = '0123456789';
/** Printable ASCII except upper case, which the normalizer lower-cases away. */
const SYMBOLS = [...'!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~'];

/** Token → id, special tokens first ([PAD] is 0). */
export function buildVocabulary(): Map<string, number> {
  const pairs = [...LETTERS].flatMap((a) => [...LETTERS].map((b) => a + b));
  const alphanumerics = [...LETTERS, ...DIGITS];
  const tokens = [
    ...SPECIAL_TOKENS,
    ...alphanumerics,
    ...SYMBOLS,
    ...alphanumerics.map((c) => CONTINUATION + c),
    ...pairs,
    ...pairs.map((p) => CONTINUATION + p),
    ...WHOLE_WORDS,
    ...WORD_ENDINGS.map((e) => CONTINUATION + e),
  ];
  const vocabulary = new Map<string, number>();
  for (const token of tokens) if (!vocabulary.has(token)) vocabulary.set(token, vocabulary.size);
  return vocabulary;
}

/** The files transformers.js reads for a BERT tokenizer, as JSON values. */
export function tokenizerFiles(
  vocabulary: ReadonlyMap<string, number>,
  maxLength: number,
): Record<'tokenizer.json' | 'tokenizer_config.json' | 'special_tokens_map.json', unknown> {
  const id = (token: string) => {
    const value = vocabulary.get(token);
    if (value === undefined) throw new Error(`${token} is not in the vocabulary`);
    return value;
  };
  const special = (token: string) => ({ SpecialToken: { id: token, type_id: 0 } });
  const sequence = (name: 'A' | 'B', typeId: number) => ({ Sequence: { id: name, type_id: typeId } });
  const names = { cls_token: CLS, sep_token: SEP, pad_token: PAD, unk_token: UNK, mask_token: MASK };
  return {
    'tokenizer.json': {
      version: '1.0',
      truncation: null,
      padding: null,
      added_tokens: SPECIAL_TOKENS.map((token) => ({
        id: id(token),
        content: token,
        single_word: false,
        lstrip: false,
        rstrip: false,
        normalized: false,
        special: true,
      })),
      normalizer: {
        type: 'BertNormalizer',
        clean_text: true,
        handle_chinese_chars: true,
        strip_accents: null,
        lowercase: true,
      },
      pre_tokenizer: { type: 'BertPreTokenizer' },
      post_processor: {
        type: 'TemplateProcessing',
        single: [special(CLS), sequence('A', 0), special(SEP)],
        pair: [
          special(CLS),
          sequence('A', 0),
          special(SEP),
          sequence('B', 1),
          { SpecialToken: { id: SEP, type_id: 1 } },
        ],
        special_tokens: Object.fromEntries(
          [CLS, SEP].map((token) => [token, { id: token, ids: [id(token)], tokens: [token] }]),
        ),
      },
      decoder: { type: 'WordPiece', prefix: CONTINUATION, cleanup: true },
      model: {
        type: 'WordPiece',
        unk_token: UNK,
        continuing_subword_prefix: CONTINUATION,
        max_input_chars_per_word: 100,
        vocab: Object.fromEntries(vocabulary),
      },
    },
    'tokenizer_config.json': {
      tokenizer_class: 'BertTokenizer',
      do_lower_case: true,
      model_max_length: maxLength,
      clean_up_tokenization_spaces: true,
      ...names,
    },
    'special_tokens_map.json': names,
  };
}
