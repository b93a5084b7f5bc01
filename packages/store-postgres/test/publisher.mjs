// A publisher in its own process, for the tests that kill one: publishes the label of the
// local index at argv[2] to argv[3] as repository argv[4], one file per batch, and stops (prints
// "paused", then waits to be killed) after the first batch of the phase argv[5].
import { Store } from '@ca/store';
import { publish } from '@ca/store-postgres';

const [indexPath, url, repository, pauseAt] = process.argv.slice(2);
const store = Store.open(indexPath, { readonly: true });
await publish(url, repository, store.snapshotSource('working'), {
  batchFiles: 1,
  onProgress: async (phase, done) => {
    if (phase !== pauseAt || done !== 1) return;
    process.stdout.write('paused\n');
    await new Promise(() => setInterval(() => undefined, 1000));
  },
});
process.stdout.write('finished\n');
