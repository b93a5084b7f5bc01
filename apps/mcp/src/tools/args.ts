import { isAbsolute, relative, resolve, sep } from 'node:path';
import { z } from 'zod';
import { CaError } from '@ca/schema';

/** Longest query the retrieval pipeline reads (its MAX_QUERY_CHARS); longer ones are refused, not cut. */
export const MAX_QUERY_CHARS = 8192;
/** Most results or files a list answer asks for at once. */
export const MAX_LIMIT = 100;

/**
 * `path` (a file or a glob) as a repository-relative POSIX path for index lookups; one that
 * leads outside the repository (absolute elsewhere, or climbing out with `..`) is `invalid_path`.
 */
export function insideRepo(root: string, path: string, what: string): string {
  const rel = relative(root, resolve(root, path));
  if (rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) {
    throw new CaError('invalid_path', `${what} is outside the repository ${root}: ${path}`, { context: { path } });
  }
  return rel.split(sep).join('/');
}

/** A string that must hold more than white space. */
export const nonEmpty = (what: string) => z.string().refine((s) => s.trim() !== '', `${what} is empty`);

/** A bounded whole number; the upper bound is checked, not advertised (every schema byte costs each agent tokens). */
export const int = (name: string, min: number, max: number) =>
  z
    .number()
    .refine((v) => v >= min, `${name} must be at least ${min}`)
    .refine((v) => Number.isInteger(v), `${name} must be a whole number`)
    .refine((v) => v <= max, `${name} must be at most ${max}`);

/** A comma-separated list of `values` (a string, not an enum: the enum of node kinds alone would cost ~100 tokens per schema). */
export const listOf = <T extends readonly [string, ...string[]]>(values: T, what: string, example: string) =>
  z
    .string()
    .refine((s) => s.split(',').every((v) => (values as readonly string[]).includes(v.trim())), `${what} must be a comma-separated list of: ${values.join(', ')}`)
    .transform((s) => s.split(',').map((v) => v.trim()) as unknown as T[number][])
    .optional()
    .describe(`e.g. ${example}`);

/** One of `values`, checked on the server; the schema says only "string" (see the navigation note). */
export const oneOf = <T extends readonly string[]>(name: string, values: T) =>
  z
    .string()
    .refine((v) => values.includes(v), `${name} must be one of ${values.join(', ')}`)
    .optional();

/** A query: not empty, not over what retrieval reads. */
export const queryArg = z
  .string()
  .max(MAX_QUERY_CHARS, `query is longer than ${MAX_QUERY_CHARS} characters; ask with the words or names that matter`)
  .refine((q) => q.trim() !== '', 'query is empty');
/**
 * A symbol by id or name (bare or qualified: lookup_symbol's description says so once, which
 * leaves tools/list room within its token budget).
 */
export const symbolArg = nonEmpty('symbol').describe('Id or name.');
/** The offset of the next page of a cut answer. */
// Undescribed: a cut answer names its `nextOffset`, which is what this takes (the schema bytes are the agents' tokens).
export const offsetArg = int('offset', 0, 1_000_000).optional();
/** Answers come from the working tree unless a label (an indexed commit, list_labels) is named. */
export const labelArg = { label: z.string().optional() };
/** Whether `.gitignore`d entries are listed or read. */
export const ignoredArg = { include_ignored: z.boolean().optional().describe("Include .gitignore'd entries.") };

/** The engine option naming the call's label, when it names one. */
export const labelOf = (args: { label?: string | undefined }) => (args.label === undefined ? {} : { label: args.label });
