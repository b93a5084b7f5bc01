import { USAGE } from './usage.js';

/** Commands that parse their own options (help included). */
const OWN_APPS = new Set(['eval', 'mcp', 'serve', 'ui']);

/** `ca mcp` subcommands that print and exit; every other `ca mcp …` and `ca serve` is a server. */
const MCP_PRINTERS = new Set(['instructions', 'install', '--help', '-h']);

/** The MCP servers own their pipes: stdout is the protocol, and they stop on their own terms. */
function isServer(argv: string[]): boolean {
  return argv[0] === 'serve' || (argv[0] === 'mcp' && !MCP_PRINTERS.has(argv[1] ?? ''));
}

/**
 * A reader that went away (`ca view F | head -1`) ends the command quietly with exit 0, like
 * other Unix tools: the rest of the output has nowhere to go. A failed stderr write is dropped
 * (nobody is left to tell). Not for the MCP servers, which stop on their own terms (apps/mcp
 * lifecycle.ts).
 */
function quietPipes(): void {
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(0);
    if (process.stderr.writable) process.stderr.write(`ca: cannot write the output: ${e.message}\n`);
    process.exit(1);
  });
  process.stderr.on('error', () => {
    // stderr's reader is gone: there is nowhere to report anything, and the command goes on.
  });
}

/** `--help` or `-h` before any `--`: printed here, without loading the engine. */
function wantsHelp(argv: string[]): boolean {
  const end = argv.indexOf('--');
  const options = end === -1 ? argv : argv.slice(0, end);
  return options.includes('--help') || options.includes('-h');
}

async function main(argv: string[]): Promise<number> {
  const app = OWN_APPS.has(argv[0] ?? '');
  if (!isServer(argv)) quietPipes();
  if (!app && (argv.length === 0 || wantsHelp(argv))) {
    process.stdout.write(`${USAGE}\n`);
    return argv.length === 0 ? 2 : 0;
  }
  // The engine (SQLite, parsers, the embedder's runtime when a command needs it) loads only here.
  const { run } = await import('./cli.js');
  return run(argv);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  async (e: unknown) => {
    const { reportError } = await import('./output.js');
    process.exitCode = reportError(e, process.argv.includes('--json'));
  },
);
