import { basename, resolve } from 'node:path';
import type { Engine } from '@ca/engine';
import type { RepoSessions } from '@ca/mcp';

/**
 * One repository the viewer serves. Pages and the API name it by `name` only (`?repo=NAME`),
 * never by a path: a name that is not in the list is a 404, not a directory the server opens.
 */
export interface UiRepo {
  /** The name in URLs and the picker (the directory's name; `-2`, `-3` … when two are alike). */
  readonly name: string;
  /** The repository root (absolute): shown nowhere in the pages, kept for the server's own log. */
  readonly path: string;
  /** Runs `work` with the repository's engine (held open for the duration under `ca serve`'s pool). */
  use<T>(work: (engine: Engine) => T | Promise<T>): Promise<T>;
}

/** Unique URL names for repository roots: their directory names, with `-2`, `-3` … for repeats. */
export function repoNames(paths: readonly string[]): string[] {
  const seen = new Map<string, number>();
  return paths.map((p) => {
    const base = basename(resolve(p)) || 'repo';
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    return n === 1 ? base : `${base}-${n}`;
  });
}

/** `ca ui`: engines the viewer opened itself, one per `--repo`. */
export function engineRepos(engines: readonly Engine[]): UiRepo[] {
  const names = repoNames(engines.map((e) => e.repoRoot));
  return engines.map((engine, i) => ({ name: names[i]!, path: resolve(engine.repoRoot), use: async (work) => work(engine) }));
}

/** `ca serve`: the MCP server's repositories, each engine borrowed from its session pool per request. */
export function sessionRepos(sessions: RepoSessions): UiRepo[] {
  const names = repoNames(sessions.repos);
  return sessions.repos.map((path, i) => ({ name: names[i]!, path, use: (work) => sessions.use(path, async (s) => work(s.engine())) }));
}
