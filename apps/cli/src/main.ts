import { reportError } from './output.js';
import { run } from './cli.js';

run(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    process.exitCode = reportError(e, process.argv.includes('--json'));
  },
);
