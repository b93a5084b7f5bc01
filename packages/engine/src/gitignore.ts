import { readFileSync, renameSync, writeFileSync } from 'node:fs';

/**
 * `.codeagent/.gitignore`: the directory ignores itself — the index, its WAL files, its lock, the
 * `index.db.corrupt-*` backups and this file — so a repository shows nothing new in `git status`
 * after `ca index`. The settings a team shares stay committable.
 */
export const GITIGNORE_TEXT =
  '# Code Agent index (rebuildable): everything here is ignored, this file too.\n# config.json and workspace.json are meant to be committed.\n*\n!config.json\n!workspace.json\n';

/** The first line every `.gitignore` Code Agent wrote begins with: such a file is ours to upgrade. */
const OURS = '# Code Agent index';

/**
 * Writes `path` when it is missing, and rewrites one an older version wrote (`*.db`, `*.db-*`,
 * `*.lock` only: the backups and the file itself showed as untracked). A file someone else
 * wrote is left alone.
 */
export function ensureIndexGitignore(path: string): void {
  let current: string | null;
  try {
    current = readFileSync(path, 'utf8');
  } catch {
    // Missing (or unreadable, which writing then reports): write ours.
    current = null;
  }
  if (current === GITIGNORE_TEXT || (current !== null && !current.startsWith(OURS))) return;
  // Atomically: a concurrent opener reads either the old file or the new one, never half of it.
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, GITIGNORE_TEXT);
  renameSync(tmp, path);
}
