import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import {
  EMBEDDING_RUNTIME,
  EMBEDDING_RUNTIME_RANGE,
  embeddingRuntimeInstalled,
  type Resolve,
  requireEmbeddingRuntime,
} from '../../src/embed/embedding-runtime.js';
import { RagError } from '../../src/errors/rag-error.js';
import { E5_SMALL, model } from '../../test-support/fixtures.js';

const installed: Resolve = (specifier) => `file:///node_modules/${specifier}/index.js`;
const missing: Resolve = (specifier) => {
  throw Object.assign(new Error(`Cannot find package '${specifier}'`), { code: 'ERR_MODULE_NOT_FOUND' });
};

describe('the embedding runtime, an optional peer dependency', () => {
  it('is the range of the peerDependencies entry in package.json, and optional there', () => {
    const manifest: unknown = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'));
    assert.ok(typeof manifest === 'object' && manifest !== null);
    assert.deepEqual(Reflect.get(manifest, 'peerDependencies'), { [EMBEDDING_RUNTIME]: EMBEDDING_RUNTIME_RANGE });
    assert.deepEqual(Reflect.get(manifest, 'peerDependenciesMeta'), { [EMBEDDING_RUNTIME]: { optional: true } });
  });

  it('is found in the development install', () => {
    assert.equal(embeddingRuntimeInstalled(), true);
    requireEmbeddingRuntime(model(E5_SMALL));
  });

  it('says whether it resolves', () => {
    assert.equal(embeddingRuntimeInstalled(installed), true);
    assert.equal(embeddingRuntimeInstalled(missing), false);
  });

  it('when missing, refuses a model with what to install and the lexical-only way out', () => {
    assert.throws(
      () => requireEmbeddingRuntime(model(E5_SMALL), missing),
      (err: unknown) =>
        err instanceof RagError &&
        err.code === 'ERR_EMBEDDING_RUNTIME_MISSING' &&
        err.message.includes(`embed_model ${E5_SMALL}`) &&
        err.message.includes(`npm install ${EMBEDDING_RUNTIME}@${EMBEDDING_RUNTIME_RANGE}`) &&
        err.message.includes('"embed_model": "none"'),
    );
  });
});
