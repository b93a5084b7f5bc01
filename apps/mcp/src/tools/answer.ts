import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { Workspace, type Engine } from '@ca/engine';
import { toCaError } from '@ca/schema';
import { AnswerBudget, Budgeted, errorResult } from '../answers.js';
import type { RepoSessions } from '../pool.js';
import type { Produce, ProduceSeveral, RequestExtra, SchemaKit, ToolContext } from './context.js';
import { errorExtras } from './errors.js';
import { reportProgress } from './progress.js';

/** The answer of a call: a budgeted page as it is, any other value checked whole against the cap. */
export function withinBudget(value: object, budget: AnswerBudget): CallToolResult {
  return (value instanceof Budgeted ? value : budget.whole(value)).result;
}

/** The schema parts that depend on the server: the cap, and `repo`/`repos` only where several repositories are served. */
export function schemaKit(repos: RepoSessions, cap: number): SchemaKit {
  const repoArg = (repos.multiRepo ? { repo: z.string().optional() } : {}) as SchemaKit['repoArg'];
  const reposArg = (repos.multiRepo ? { repos: z.array(z.string()).min(1).max(20).optional() } : {}) as SchemaKit['reposArg'];
  return { cap, repoArg, reposArg };
}

/** The context every tool handler of a server answers through. */
export function toolContext(repos: RepoSessions, cap: number): ToolContext {
  return {
    ...schemaKit(repos, cap),
    repos,
    answer: (repo, extra, produce, refresh = true) => answerOne(repos, cap, repo, extra, produce, refresh),
    searchRepos: (names, extra, work) => answerSeveral(repos, cap, names, extra, work),
  };
}

/** Opens the repository's engine, refreshes the index when the session does, answers; every failure is an error result. */
async function answerOne(repos: RepoSessions, cap: number, repo: string | undefined, extra: RequestExtra, produce: Produce, refresh: boolean): Promise<CallToolResult> {
  let engine: Engine | null = null;
  try {
    return await repos.use(repo, async (session) => {
      const progress = reportProgress(session, extra);
      try {
        const opened = (engine = session.engine());
        return await session.answer(async () => {
          const budget = new AnswerBudget(cap, refresh ? await session.beforeAnswer() : null);
          return withinBudget(await produce(opened, session, budget), budget);
        });
      } finally {
        progress?.();
      }
    });
  } catch (e) {
    return errorResult(e, errorExtras(engine, e));
  }
}

/**
 * Runs `work` over several served repositories at once: each refreshed like a single answer
 * (a refresh warning is kept), those that cannot be opened reported as unavailable, the rest
 * searched as one workspace. `work` gets the first engine (for paths and limits) and the workspace.
 */
async function answerSeveral(repos: RepoSessions, cap: number, names: readonly string[], _extra: RequestExtra, work: ProduceSeveral): Promise<CallToolResult> {
  const opened: { name: string; engine: Engine }[] = [];
  const unavailable: { name: string; root: string; status: 'unavailable'; reason: string }[] = [];
  const warnings: string[] = [];
  const visit = async (i: number): Promise<CallToolResult> => {
    if (i === names.length) {
      const budget = new AnswerBudget(cap, warnings.length > 0 ? warnings.join('; ') : null);
      return withinBudget(await work(opened[0]?.engine ?? (null as never), Workspace.of(opened, unavailable), budget), budget);
    }
    const name = names[i]!;
    try {
      return await repos.use(name, async (session) => {
        try {
          const engine = session.engine();
          const warning = await session.beforeAnswer();
          if (warning) warnings.push(`${name}: ${warning}`);
          opened.push({ name, engine });
        } catch (e) {
          unavailable.push({ name, root: name, status: 'unavailable', reason: toCaError(e).message });
        }
        return visit(i + 1);
      });
    } catch (e) {
      // Outside the allow-list: refused, like a single repo argument.
      return errorResult(e, {});
    }
  };
  try {
    return await visit(0);
  } catch (e) {
    return errorResult(e, {});
  }
}
