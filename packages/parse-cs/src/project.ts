import { posix } from 'node:path';
import { CaError } from '@ca/schema';
import { CONFIGURATION_SYMBOLS, frameworkSymbols } from './preprocessor.js';
import { attr, descendants, localName, parseXml, XmlSyntaxError, type XmlElement } from './xml.js';

/** What the syntactic pass reads from a `.csproj` (text only; MSBuild is never evaluated). */
export interface CsProject {
  /** Repo-relative POSIX path of the project file. */
  readonly path: string;
  /** File name without `.csproj`. */
  readonly name: string;
  /** `Microsoft.NET.Sdk` etc., or null for a legacy (non-SDK) project. */
  readonly sdk: string | null;
  readonly targetFrameworks: string[];
  readonly defineConstants: string[];
  /** Repo-relative POSIX paths of referenced projects. */
  readonly projectReferences: string[];
  /**
   * Repo-relative POSIX paths of the MSBuild files it imports (`<Import Project="..\build\common.props"/>`),
   * whatever their condition; SDK imports and imports through `$(…)` properties are left out.
   */
  readonly imports: string[];
  readonly packageReferences: { name: string; version: string | null }[];
  readonly compileRemove: string[];
  readonly compileInclude: string[];
  readonly assemblyName: string | null;
  readonly rootNamespace: string | null;
  readonly langVersion: string | null;
  readonly nullable: string | null;
  /** `<IsTestProject>` when set to true or false (the SDK's switch for `dotnet test`), else null. */
  readonly isTestProject: boolean | null;
}

function load(text: string, path: string, what: string): XmlElement {
  try {
    return parseXml(text);
  } catch (e) {
    const reason = e instanceof XmlSyntaxError ? e.message : String(e);
    throw new CaError('project_load_failed', `${path}: malformed ${what}: ${reason}`, { cause: e, context: { path } });
  }
}

/**
 * A condition is honoured only in the common `'$(Configuration)…' == 'Release…'` shape
 * (we assume a Release build); any other condition is unknowable without evaluation, so
 * the element is skipped.
 */
function conditionHolds(el: XmlElement): boolean {
  const cond = attr(el, 'Condition');
  if (cond === undefined || cond.trim() === '') return true;
  const m = /^\s*'([^']*)'\s*(==|!=)\s*'([^']*)'\s*$/.exec(cond);
  if (!m) return false;
  const lhs = m[1]!.split('|');
  const rhs = m[3]!.split('|');
  if (lhs.length !== rhs.length) return false;
  let equal = true;
  for (let k = 0; k < lhs.length; k++) {
    const v = lhs[k]!.trim();
    const value = v === '$(Configuration)' ? 'Release' : v === '$(Platform)' ? 'AnyCPU' : null;
    if (value === null) return false;
    if (value.toLowerCase() !== rhs[k]!.trim().toLowerCase()) equal = false;
  }
  return m[2] === '==' ? equal : !equal;
}

function splitList(value: string): string[] {
  return value
    .split(';')
    .map((s) => s.trim())
    .filter((s) => s !== '' && !s.includes('$('));
}

const toPosix = (p: string): string => p.replace(/\\/g, '/');

function resolveFrom(fromFile: string, relative: string): string {
  const dir = posix.dirname(toPosix(fromFile));
  const joined = posix.normalize(posix.join(dir === '.' ? '' : dir, toPosix(relative)));
  return joined.startsWith('./') ? joined.slice(2) : joined;
}

/** An MSBuild boolean property (`true`/`false`, any case), or null when unset or anything else. */
function booleanProp(value: string | null): boolean | null {
  const v = value?.trim().toLowerCase();
  return v === 'true' ? true : v === 'false' ? false : null;
}

/**
 * Reads a `.csproj` as XML without evaluating it. Properties are read from property groups
 * whose condition is absent or holds for Release (last definition wins, as in MSBuild);
 * `$(…)` references are dropped from lists. Throws `CaError('project_load_failed')` on
 * malformed XML or a root element that is not `<Project>`.
 */
export function readCsproj(text: string, path: string): CsProject {
  const root = load(text, path, 'project file');
  if (localName(root.name) !== 'Project') {
    throw new CaError('project_load_failed', `${path}: root element is <${root.name}>, expected <Project>`, { context: { path } });
  }
  const props = new Map<string, string>();
  const defineConstants: string[] = [];
  const projectReferences: string[] = [];
  const imports: string[] = [];
  const packageReferences: { name: string; version: string | null }[] = [];
  const compileRemove: string[] = [];
  const compileInclude: string[] = [];
  let sdk = attr(root, 'Sdk') ?? null;
  for (const group of root.children) {
    const gname = localName(group.name);
    if (gname === 'Sdk' && sdk === null) sdk = attr(group, 'Name') ?? null;
    if (gname === 'Import' && sdk === null && attr(group, 'Sdk')) sdk = attr(group, 'Sdk') ?? null;
    // An import with `Sdk` names a file of that SDK, not of the repository.
    if (gname === 'Import' && !attr(group, 'Sdk')) for (const target of splitList(attr(group, 'Project') ?? '')) imports.push(resolveFrom(path, target));
    if (!conditionHolds(group)) continue;
    if (gname === 'PropertyGroup') {
      for (const p of group.children) {
        if (!conditionHolds(p)) continue;
        const key = localName(p.name).toLowerCase();
        const value = p.text.trim();
        if (key === 'defineconstants') {
          for (const s of splitList(value)) if (!defineConstants.includes(s)) defineConstants.push(s);
        } else {
          props.set(key, value);
        }
      }
    } else if (gname === 'ItemGroup') {
      for (const item of group.children) {
        if (!conditionHolds(item)) continue;
        const kind = localName(item.name);
        const include = attr(item, 'Include');
        const remove = attr(item, 'Remove');
        if (kind === 'ProjectReference' && include) {
          for (const inc of splitList(include)) projectReferences.push(resolveFrom(path, inc));
        } else if (kind === 'PackageReference') {
          const name = include ?? attr(item, 'Update');
          if (!name) continue;
          const child = item.children.find((c) => localName(c.name) === 'Version');
          const version = attr(item, 'Version') ?? (child ? child.text.trim() : null);
          packageReferences.push({ name, version: version === '' ? null : version });
        } else if (kind === 'Compile') {
          if (include) compileInclude.push(...splitList(include).map(toPosix));
          if (remove) compileRemove.push(...splitList(remove).map(toPosix));
        }
      }
    }
  }
  const prop = (k: string): string | null => {
    const v = props.get(k);
    return v === undefined || v === '' || v.includes('$(') ? null : v;
  };
  let targetFrameworks = splitList(props.get('targetframeworks') ?? '');
  if (targetFrameworks.length === 0) targetFrameworks = splitList(props.get('targetframework') ?? '');
  if (targetFrameworks.length === 0) {
    // Legacy projects: <TargetFrameworkVersion>v4.7.2</TargetFrameworkVersion> → net472.
    const legacy = /^v(\d)\.(\d)(?:\.(\d))?$/.exec(props.get('targetframeworkversion') ?? '');
    if (legacy) targetFrameworks = [`net${legacy[1]}${legacy[2]}${legacy[3] ?? ''}`];
  }
  const file = posix.basename(toPosix(path));
  return {
    path: toPosix(path),
    name: file.replace(/\.[^.]+$/, ''),
    sdk,
    targetFrameworks,
    defineConstants,
    projectReferences,
    imports,
    packageReferences,
    compileRemove,
    compileInclude,
    assemblyName: prop('assemblyname'),
    rootNamespace: prop('rootnamespace'),
    langVersion: prop('langversion'),
    nullable: prop('nullable'),
    isTestProject: booleanProp(prop('istestproject')),
  };
}

const SOLUTION_FOLDER = '2150E333-8FDC-42A3-9474-1A3956D46DE8';

/**
 * Lists the C# project files (`.csproj`) of a solution, repo-relative and POSIX, in file order.
 * `.sln`: `Project("{type}") = "Name", "rel\\path.csproj", "{id}"` lines; `.slnx`: `<Project Path=…>`
 * elements at any depth. Throws `CaError('project_load_failed')` on a malformed `.slnx`.
 */
export function readSolution(text: string, path: string): string[] {
  const out: string[] = [];
  const add = (rel: string): void => {
    if (!/\.csproj$/i.test(rel)) return;
    const p = resolveFrom(path, rel);
    if (!out.includes(p)) out.push(p);
  };
  if (/\.slnx$/i.test(path) || text.trimStart().startsWith('<')) {
    const root = load(text, path, 'solution file');
    for (const el of descendants(root, 'Project')) {
      const p = attr(el, 'Path');
      if (p) add(p);
    }
    return out;
  }
  const re = /^\s*Project\("\{([^}]*)\}"\)\s*=\s*"([^"]*)"\s*,\s*"([^"]*)"/gm;
  for (const m of text.matchAll(re)) {
    if (m[1]!.toUpperCase() === SOLUTION_FOLDER) continue;
    add(m[3]!);
  }
  return out;
}

/**
 * The preprocessor symbols for a project: its DefineConstants, the framework symbols of its
 * first target framework (a syntactic pass sees one configuration; the first listed TFM is
 * the one IDEs show by default), and `RELEASE`/`TRACE` (a Release build, so no `DEBUG`).
 * Without any target framework, `net8.0` is assumed.
 */
export function preprocessorSymbolsFor(project: CsProject): string[] {
  const tfm = project.targetFrameworks[0] ?? 'net8.0';
  const all = [...project.defineConstants, ...frameworkSymbols(tfm), ...CONFIGURATION_SYMBOLS];
  return [...new Set(all)];
}
