/**
 * A process that follows an index while it writes to it, for the crash test:
 * argv: <index> <files>. Replaces files one after the other (their old chunks
 * deleted in place), follows each commit with its snapshot source, and prints
 * `merge started <rows>` when a merge of segments starts and `merged <rows>`
 * when one is installed, until it is killed.
 */
import { findModel } from '../src/config/models.js';
import { SnapshotSource } from '../src/snapshot/snapshot-source.js';
import { IndexStore } from '../src/store/index-store.js';
import { fileRecord } from './fixtures.js';

const [indexPath = '', fileCount = '0'] = process.argv.slice(2);
const model = findModel('sentence-transformers/all-MiniLM-L6-v2');
if (!model) throw new Error('no MiniLM in the model table');
const source = new SnapshotSource({
  indexPath,
  model,
  reloadSpacing: () => 0,
  onMerge: (event) => {
    if (event.kind === 'started') process.stdout.write(`merge started ${event.rows}\n`);
    if (event.kind === 'merged') process.stdout.write(`merged ${event.rows}\n`);
  },
});
await source.start();
const store = IndexStore.open(indexPath, { model, nowMs: 1 });
for (let round = 0; ; round += 1) {
  const f = round % Number(fileCount);
  const chunks = Array.from({ length: 10 }, (_, seq) => {
    const vector = new Float32Array(model.dimension);
    vector[(round + seq) % model.dimension] = 1;
    return {
      seq,
      heading: 'H',
      lineStart: 1,
      lineEnd: 1,
      text: `round ${round} chunk ${seq} of file ${f}`,
      tokenCount: 1,
      vector,
    };
  });
  store.replaceFile(fileRecord(`n${f}.md`, { aliases: [] }), chunks, 1);
  await source.refresh();
}
