import { runMcpCli } from './cli.js';
import { stderrLog } from './server.js';

runMcpCli(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    stderrLog(e instanceof Error ? e.message : String(e));
    process.exitCode = 1;
  },
);
