import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { E5_SMALL, MINILM, sharedEmbedder } from '../../test-support/fixtures.js';

const norm = (v: Float32Array) => Math.sqrt(v.reduce((sum, x) => sum + x * x, 0));

describe('loadTransformersEmbedder (the generated test model: shapes and plumbing, never quality)', () => {
  it('returns one L2-normalized vector of the model dimension per input', async () => {
    const embedder = await sharedEmbedder(MINILM);
    const vectors = await embedder.embedTexts(['first text', 'a second, longer text with more tokens in it', 'drei']);
    assert.equal(vectors.length, 3);
    for (const v of vectors) {
      assert.equal(v.length, 384);
      assert.ok(Math.abs(norm(v) - 1) < 1e-4);
    }
    assert.deepEqual(await embedder.embedTexts([]), []);
  });

  it('embeds the same text the same way alone and inside a padded batch', async () => {
    const embedder = await sharedEmbedder(MINILM);
    const [alone] = await embedder.embedTexts(['short']);
    const [batched] = await embedder.embedTexts(['short', 'a much longer input that forces padding of the short one']);
    assert.ok(alone && batched);
    const cosine = alone.reduce((sum, x, i) => sum + x * (batched[i] ?? 0), 0);
    assert.ok(cosine > 0.9999, `cosine ${cosine}`);
  });

  it('adds the e5 query prefix to queries', async () => {
    const embedder = await sharedEmbedder(E5_SMALL);
    const [withPrefix] = await embedder.embedTexts(['query: rotate keys']);
    const query = await embedder.embedQuery('rotate keys');
    assert.ok(withPrefix);
    assert.deepEqual(Array.from(query), Array.from(withPrefix));
  });

  for (const id of [MINILM, E5_SMALL]) {
    it(`embeds a text it counted just before (${id}) to the very vector the tokenizer's input gives`, async () => {
      const embedder = await sharedEmbedder(id);
      const texts = ['passage: Keys > Rotation\nRotate the signing keys.', 'lang '.repeat(400)];
      for (const text of texts) {
        embedder.countTokens(text);
        const [fromCount] = await embedder.embedTexts([text]);
        const [tokenized] = await embedder.embedTexts([text]);
        assert.ok(fromCount && tokenized);
        assert.deepEqual(fromCount, tokenized, text.slice(0, 20));
      }
    });
  }

  it('counts tokens without the special tokens', async () => {
    const embedder = await sharedEmbedder(MINILM);
    assert.equal(embedder.countTokens(''), 0);
    assert.equal(embedder.countTokens('hello world'), 2);
  });
});
