import { posix } from 'node:path';

/** The project a Razor file belongs to, as the Razor SDK names its classes from it. */
export interface RazorProject {
  /** Repo-relative directory of the `.csproj` ('' for the root). */
  readonly dir: string;
  /** `<RootNamespace>`, else the project file's name (MSBuild's default). */
  readonly rootNamespace: string;
}

/** True for the files the Razor pass reads: `.razor` components and `.cshtml` pages and views. */
export function isRazorPath(path: string): boolean {
  const p = path.toLowerCase();
  return p.endsWith('.razor') || p.endsWith('.cshtml');
}

/** A folder or file name made an identifier the way the Razor SDK does (other characters → `_`). */
export function sanitizeIdentifier(name: string): string {
  const s = name.replace(/[^\p{L}\p{Nd}_]/gu, '_');
  return /^\p{Nd}/u.test(s) ? `_${s}` : s;
}

/** `Components/Pages/Counter.razor` → `Counter`. */
export function componentName(path: string): string {
  const file = posix.basename(path);
  return sanitizeIdentifier(file.slice(0, file.lastIndexOf('.')));
}

/**
 * The namespace of a Razor file's class: its own `@namespace` when it has one, else the
 * project's root namespace followed by the folders from the project directory to the file
 * (`Shop.Api` + `Components/Pages` → `Shop.Api.Components.Pages`), as the Razor SDK derives it.
 * A `@namespace` in an `_Imports.razor` of a parent folder is not seen (this pass reads one file).
 */
export function razorNamespace(path: string, project: RazorProject | null, declared: string | null): string {
  if (declared) return declared;
  const dir = posix.dirname(path);
  const base = project?.dir ?? '';
  const relDir = base === '' ? (dir === '.' ? '' : dir) : dir === base ? '' : dir.startsWith(`${base}/`) ? dir.slice(base.length + 1) : dir;
  const parts = [...(project?.rootNamespace ? project.rootNamespace.split('.') : []), ...(relDir ? relDir.split('/').map(sanitizeIdentifier) : [])];
  return parts.filter((p) => p.length > 0).join('.');
}

/**
 * The route of a Razor Page (`.cshtml` with `@page`): its path under `Pages/` (or
 * `Areas/<area>/Pages/`) without the extension and a trailing `Index`, then the `@page`
 * template appended, unless the template is rooted (`/…`, `~/…`), which replaces it.
 */
export function razorPageRoute(path: string, project: RazorProject | null, template: string | null): string {
  const base = project?.dir ?? '';
  const rel = base === '' ? path : path.startsWith(`${base}/`) ? path.slice(base.length + 1) : path;
  if (template && /^~?\//.test(template)) return template;
  const parts = rel.replace(/\.cshtml$/i, '').split('/');
  let segments: string[];
  const pages = parts.indexOf('Pages');
  if (parts[0] === 'Areas' && parts.length > 3 && parts[2] === 'Pages') segments = [parts[1]!, ...parts.slice(3)];
  else segments = pages >= 0 ? parts.slice(pages + 1) : parts;
  if (segments[segments.length - 1] === 'Index') segments = segments.slice(0, -1);
  const route = `/${segments.join('/')}`;
  return template ? `${route}/${template}` : route;
}
