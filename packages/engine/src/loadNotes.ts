import { isAbsolute, relative, sep } from 'node:path';
import type { LoadWarning } from '@ca/parse-cs';
import type { SemanticServiceEvent } from '@ca/parse-ts';
import { LOAD_NOTE_KINDS, type LoadNoteKind, type Store } from '@ca/store';

function isLoadNoteKind(code: string | undefined): code is LoadNoteKind {
  return (LOAD_NOTE_KINDS as readonly string[]).includes(code ?? '');
}

/** A path as the index names it: repo-relative POSIX when it lies inside the repository. */
function repoPath(repoRoot: string, path: string | null | undefined): string | null {
  if (path === null || path === undefined || path === '') return null;
  if (!isAbsolute(path)) return path.split(sep).join('/');
  const rel = relative(repoRoot, path);
  return rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel) ? path : rel.split(sep).join('/');
}

/**
 * The TS semantic service's event handler that records what the pass did not load (a
 * `plugin_blocked` event per stripped tsconfig plugin) as load notes of the index (`ca status`).
 */
export function tsLoadNoteRecorder(repoRoot: string, store: () => Store): (event: SemanticServiceEvent) => void {
  return (event) => {
    if (event.type !== 'worker_event' || !isLoadNoteKind(event.code) || event.message === undefined) return;
    store().loadNotes.record({ kind: event.code, path: repoPath(repoRoot, event.project), message: event.message });
  };
}

/** Records roslyn-host's load warnings that say what was not run or read (targets, analyzers, refused files). */
export function recordCsLoadWarnings(store: Store, repoRoot: string, warnings: readonly LoadWarning[]): void {
  for (const w of warnings) {
    if (isLoadNoteKind(w.code)) store.loadNotes.record({ kind: w.code, path: repoPath(repoRoot, w.path), message: w.message });
  }
}
