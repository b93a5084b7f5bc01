import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { CaError } from '@ca/schema';

/** What `ca use` remembers: the repository and label commands use when none is given. */
export interface UseContext {
  readonly repo?: string;
  readonly label?: string;
}

/** `$CA_CONTEXT_FILE`, else `$XDG_CONFIG_HOME/codeagent/context.json` (default `~/.config/codeagent/context.json`). */
export function contextFile(env: NodeJS.ProcessEnv = process.env): string {
  if (env['CA_CONTEXT_FILE']) return resolve(env['CA_CONTEXT_FILE']);
  const base = env['XDG_CONFIG_HOME'] ? resolve(env['XDG_CONFIG_HOME']) : join(homedir(), '.config');
  return join(base, 'codeagent', 'context.json');
}

/** The remembered context (empty when none was set, or the file is unreadable). */
export function readContext(env: NodeJS.ProcessEnv = process.env): UseContext {
  const file = contextFile(env);
  if (!existsSync(file)) return {};
  try {
    const json = JSON.parse(readFileSync(file, 'utf8')) as { repo?: unknown; label?: unknown };
    return {
      ...(typeof json.repo === 'string' ? { repo: json.repo } : {}),
      ...(typeof json.label === 'string' ? { label: json.label } : {}),
    };
  } catch (e) {
    throw new CaError('config_invalid', `${file} is not a valid context file (${(e as Error).message}); fix it or run ca use --clear`, { context: { path: file } });
  }
}

/** Writes the context (atomically), or removes it when empty. */
export function writeContext(context: UseContext, env: NodeJS.ProcessEnv = process.env): string {
  const file = contextFile(env);
  if (context.repo === undefined && context.label === undefined) {
    rmSync(file, { force: true });
    return file;
  }
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(context, null, 2)}\n`);
  renameSync(tmp, file);
  return file;
}
