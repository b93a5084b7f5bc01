import { CaError } from '@ca/schema';

/** The label of the working tree (a linked git worktree's is `working@<name>`). */
export const WORKING_LABEL = 'working';

/** The grammar of label names, as error messages and the docs state it. */
export const LABEL_NAME_RULES =
  '1-64 characters: letters, digits, ".", "_" and "-", starting with a letter or digit ("/", spaces, a leading "-" and ".." are not allowed)';

/**
 * Checks a label name given by a user (`ca index --label NAME`): `usage` errors for anything
 * outside the grammar, or the working tree's own names (`working`, `working@…`).
 */
export function validateLabelName(name: string, options: { allowWorking?: boolean } = {}): string {
  const bad = (why: string) => new CaError('usage', `invalid label name "${name.length > 80 ? `${name.slice(0, 80)}…` : name}": ${why} (${LABEL_NAME_RULES})`, { context: { label: name } });
  if (options.allowWorking && (name === WORKING_LABEL || /^working@[A-Za-z0-9._-]{1,64}$/.test(name))) return name;
  if (name === '') throw bad('empty');
  if (name.length > 64) throw bad('too long');
  if (name.startsWith('-')) throw bad('starts with "-"');
  if (name.includes('/')) throw bad('contains "/"');
  if (/\s/.test(name)) throw bad('contains whitespace');
  if (name.includes('..')) throw bad('contains ".."');
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name)) throw bad('contains characters outside the grammar');
  if (name === WORKING_LABEL || name.startsWith('working@')) throw bad('"working" names the working tree; index it without --label');
  return name;
}

/** The working label of a linked git worktree (`git worktree add`), or `working` for the main one. */
export function worktreeLabel(worktreeName: string | null): string {
  if (worktreeName === null) return WORKING_LABEL;
  const safe = worktreeName.replace(/[^A-Za-z0-9._-]/g, '-').slice(0, 64) || 'worktree';
  return `${WORKING_LABEL}@${safe}`;
}
