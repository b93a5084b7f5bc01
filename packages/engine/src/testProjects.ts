import type { ProjectTestFact } from '@ca/schema';
import type { TreeAccess } from '@ca/invalidation';
import type { Store } from '@ca/store';
import type { ProjectFiles } from './projects.js';
import type { LanguageRegistry } from './languages/registry.js';

/**
 * Records which project files of the run's tree are test projects (decision 051), for ranking
 * and `is:test`. A full run classifies every project file it found; a run over some paths
 * classifies those it read and keeps the label's other facts, dropping those of project files
 * gone from the tree. A project file that cannot be read is recorded once as an event.
 */
export function recordTestProjects(store: Store, label: string, registry: LanguageRegistry, projects: ProjectFiles, tree: TreeAccess, full: boolean): void {
  const previous = store.reader(label).projectFacts();
  const facts = new Map<string, ProjectTestFact>();
  if (!full) for (const [path, fact] of previous) if (tree.entry(path) !== null) facts.set(path, fact);
  for (const l of registry.languages) {
    const classify = l.testProject;
    if (!classify) continue;
    for (const file of Object.values(projects[l.id] ?? {})) {
      const fact = classify(file);
      facts.set(file.path, fact);
      const before = previous.get(file.path);
      if (fact.unreadable && (before?.reason !== fact.reason)) store.writer.recordEvent('project_unreadable', file.path, `not classed as a test project: ${fact.reason}`);
    }
  }
  store.writer.setProjectFacts(label, facts);
}
