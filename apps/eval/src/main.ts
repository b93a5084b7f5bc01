import { runEvalCli } from './cli.js';

// Standalone entry: `node apps/eval/dist/main.js run …` (the `ca` CLI dispatches `ca eval …` to runEvalCli).
runEvalCli(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    process.stderr.write(`ca eval: ${(e as Error).message}\n`);
    process.exitCode = 1;
  },
);
