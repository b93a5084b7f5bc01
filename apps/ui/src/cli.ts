import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Engine } from '@ca/engine';
import { removeViewerFile, viewerFilePath, writeViewerFile } from '@ca/mcp';
import { CaError, toCaError } from '@ca/schema';
import { startUi } from './server.js';

/** The default port of `ca ui` (one above the MCP server's). */
export const DEFAULT_UI_PORT = 7312;

const USAGE = `usage: ca ui [--repo DIR]... [--port N]

A read-only viewer of the index in the browser, on http://127.0.0.1:PORT only.
  --repo DIR   a repository to serve (repeatable: the pages get a repository picker;
               default: the current directory)
  --port N     port (default ${DEFAULT_UI_PORT}; 0 picks a free one)

Prints a one-time login URL on stderr: opening it signs the browser in (an HttpOnly cookie) and
the link stops working; restart ca ui for a new one. Ctrl-C stops the server.`;

function usageError(message: string): number {
  process.stderr.write(`ca ui: ${message}\n${USAGE}\n`);
  return 2;
}

/** Writes `.codeagent/ui.json`; a viewer that cannot announce itself still serves (answers just carry no link). */
function announce(engine: Engine, port: number, instance: string, log: (line: string) => void): void {
  try {
    writeViewerFile(engine.dbPath, { app: 'ca-ui', port, pid: process.pid, instance, repoRoot: engine.repoRoot });
  } catch (e) {
    log(`cannot write ${viewerFilePath(engine.dbPath)} (MCP answers will not link here): ${(e as Error).message}`);
  }
}

/** `ca ui …`: starts the viewer and serves until SIGINT/SIGTERM. Returns the exit code. */
export async function runUiCli(argv: string[]): Promise<number> {
  let values: { repo?: string[]; port?: string; help?: boolean };
  try {
    ({ values } = parseArgs({ args: argv, options: { repo: { type: 'string', multiple: true }, port: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, strict: true }));
  } catch (e) {
    return usageError((e as Error).message);
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const port = values.port === undefined ? DEFAULT_UI_PORT : Number(values.port);
  if (values.port !== undefined && (!/^\d+$/.test(values.port) || port > 65535)) return usageError(`--port must be a whole number from 0 to 65535 (got "${values.port}")`);
  const engines: Engine[] = [];
  try {
    for (const repo of values.repo ?? [process.cwd()]) engines.push(Engine.open(resolve(repo)));
  } catch (e) {
    for (const engine of engines) engine.close();
    const err = toCaError(e);
    if (err.isUsage) return usageError(err.message);
    throw err;
  }
  const log = (line: string) => process.stderr.write(`ca ui: ${line}\n`);
  let ui;
  try {
    ui = await startUi({ engines, port, log });
  } catch (e) {
    for (const engine of engines) engine.close();
    if ((e as NodeJS.ErrnoException).code === 'EADDRINUSE') throw new CaError('usage', `port ${port} is in use: pass --port N (0 picks a free one)`, { cause: e });
    throw e;
  }
  // MCP answers for this repository link into the viewer while this file names it (never the token).
  // Only the first repository is announced: the viewer opens it for a link without `?repo=`, and
  // an MCP answer's link carries no repository name.
  const announced = engines[0]!;
  announce(announced, ui.port, ui.instance, log);
  // The one place the login code is shown: the terminal of the user who started the server.
  process.stderr.write(`ca ui: open ${ui.loginUrl()}\n  (a one-time link; Ctrl-C stops the server)\n`);
  await new Promise<void>((done) => {
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });
  removeViewerFile(announced.dbPath, ui.instance);
  await ui.close();
  for (const engine of engines) await engine.dispose();
  return 0;
}
