/**
 * Reads an OpenAPI 3.x or Swagger 2.0 document (JSON or YAML, one parser: JSON is YAML's flow
 * style) into its operations: HTTP method, path with the server/basePath prefix, operationId,
 * tags and the character range of the operation in the text. Never throws: a document that
 * does not parse, has no version, an unknown version, or paths it cannot read comes back with
 * the reasons, and whatever operations could be read.
 */
import { isMap, isScalar, isSeq, parseDocument, type Node as YamlNode, type Pair, type YAMLMap } from 'yaml';

/** The HTTP methods an OpenAPI path item holds (other keys are `parameters`, `summary` …). */
const METHODS: ReadonlySet<string> = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

/** One operation as read from the document, before it becomes a node. */
export interface OperationEntry {
  /** Upper-case. */
  readonly method: string;
  /** The path as written in the document, prefixed by the server/basePath path. */
  readonly rawPath: string;
  readonly operationId: string | null;
  readonly tags: readonly string[];
  /** Character range of the operation (its method key to the end of its value). */
  readonly start: number;
  readonly end: number;
}

/** A problem met reading the document. */
export interface DocumentProblem {
  readonly severity: 'error' | 'warning' | 'info';
  readonly code: string;
  readonly message: string;
  /** Character offset, when known. */
  readonly at?: number;
}

/** What {@link readOpenApi} found. */
export interface OpenApiDocument {
  /** `openapi 3.0.1`, `swagger 2.0`, or null when the document has no version it reads. */
  readonly version: string | null;
  readonly operations: readonly OperationEntry[];
  readonly problems: readonly DocumentProblem[];
}

type Problems = DocumentProblem[];

/** The operations of an OpenAPI/Swagger document's text; see the module comment. */
export function readOpenApi(text: string): OpenApiDocument {
  const problems: Problems = [];
  // The tree is walked, never converted to plain objects: YAML aliases are not expanded (no alias bomb).
  const doc = parseDocument(text, { prettyErrors: false });
  if (doc.errors.length > 0) {
    const e = doc.errors[0]!;
    problems.push({ severity: 'error', code: 'openapi_syntax', message: `not valid JSON/YAML: ${firstLine(e.message)}`, at: e.pos[0] });
    return { version: null, operations: [], problems };
  }
  const root = doc.contents;
  if (!isMap(root)) {
    problems.push({ severity: 'error', code: 'openapi_not_a_document', message: 'the root is not an object: not an OpenAPI document' });
    return { version: null, operations: [], problems };
  }
  const version = versionOf(root, problems);
  if (version === null) return { version: null, operations: [], problems };
  const prefix = version.startsWith('swagger') ? basePath(root) : serverPath(root, problems);
  const operations = readPaths(text, root, prefix, problems);
  return { version, operations, problems };
}

function firstLine(message: string): string {
  const nl = message.indexOf('\n');
  return nl < 0 ? message : message.slice(0, nl);
}

/** The value of `key` in a map (first pair), or undefined. */
function get(map: YAMLMap, key: string): unknown {
  return pairOf(map, key)?.value;
}

function pairOf(map: YAMLMap, key: string): Pair | undefined {
  return (map.items as Pair[]).find((p) => isScalar(p.key) && String(p.key.value) === key);
}

function scalarText(node: unknown): string | null {
  return isScalar(node) && (typeof node.value === 'string' || typeof node.value === 'number') ? String(node.value) : null;
}

/** `openapi 3.0.1` / `swagger 2.0`, or null with the reason. */
function versionOf(root: YAMLMap, problems: Problems): string | null {
  const openapi = scalarText(get(root, 'openapi'));
  const swagger = scalarText(get(root, 'swagger'));
  if (openapi !== null) {
    if (/^3\.\d+(\.\d+)?(-[\w.]+)?$/.test(openapi)) return `openapi ${openapi}`;
    problems.push({ severity: 'error', code: 'openapi_version', message: `unknown OpenAPI version "${openapi}": OpenAPI 3.x and Swagger 2.0 are read` });
    return null;
  }
  if (swagger !== null) {
    if (swagger === '2.0' || swagger === '2') return 'swagger 2.0';
    problems.push({ severity: 'error', code: 'openapi_version', message: `unknown Swagger version "${swagger}": OpenAPI 3.x and Swagger 2.0 are read` });
    return null;
  }
  problems.push({ severity: 'error', code: 'openapi_not_a_document', message: 'no "openapi: 3.x" or "swagger: 2.0" at the root: not an OpenAPI document' });
  return null;
}

/** Swagger 2.0's `basePath` (`/api`), '' when absent. */
function basePath(root: YAMLMap): string {
  return scalarText(get(root, 'basePath')) ?? '';
}

/**
 * OpenAPI 3's prefix: the path of the first server's URL (`https://host/api/v1` → `/api/v1`),
 * its `{variables}` replaced by their defaults; '' when there is no server or it is the root.
 * Several servers with different paths are reported: the operations are named with the first.
 */
function serverPath(root: YAMLMap, problems: Problems): string {
  const servers = get(root, 'servers');
  if (!isSeq(servers) || servers.items.length === 0) return '';
  const paths = servers.items.map((s) => (isMap(s) ? serverUrlPath(s) : null)).filter((p): p is string => p !== null);
  if (paths.length === 0) return '';
  if (new Set(paths).size > 1) {
    problems.push({ severity: 'info', code: 'openapi_servers', message: `servers with different paths (${[...new Set(paths)].join(', ')}): operations are named under the first` });
  }
  return paths[0]!;
}

function serverUrlPath(server: YAMLMap): string | null {
  let url = scalarText(get(server, 'url'));
  if (url === null) return null;
  const variables = get(server, 'variables');
  url = url.replace(/\{([^}]*)\}/g, (whole, name: string) => {
    const v = isMap(variables) ? get(variables, name) : undefined;
    const d = isMap(v) ? scalarText(get(v, 'default')) : null;
    return d ?? whole;
  });
  // The origin goes, whatever its scheme (a variable without a default, `{scheme}://`, included).
  const path = url.replace(/^[^/:]*:\/\/[^/]*/, '').replace(/^\/\/[^/]*/, '');
  return path.replace(/[?#].*$/, '').replace(/\/+$/, '');
}

/** Every operation under `paths`, following a path item's local `$ref` (never another file's). */
function readPaths(text: string, root: YAMLMap, prefix: string, problems: Problems): OperationEntry[] {
  const paths = get(root, 'paths');
  if (paths === undefined) return [];
  if (!isMap(paths)) {
    problems.push({ severity: 'error', code: 'openapi_paths', message: '"paths" is not an object: no operation read' });
    return [];
  }
  const out: OperationEntry[] = [];
  for (const pair of paths.items as Pair[]) {
    const path = scalarText(pair.key);
    if (path === null) continue;
    const item = resolveItem(root, pair.value, path, problems);
    if (item === null) continue;
    for (const op of item.items as Pair[]) {
      const method = scalarText(op.key)?.toLowerCase();
      if (method === undefined || !METHODS.has(method)) continue;
      const range = rangeOf(op);
      if (range === null) continue;
      // A block value's range runs to the next key: the span ends at its last character.
      while (range[1] > range[0] && /\s/.test(text[range[1] - 1]!)) range[1]--;
      const value = op.value;
      out.push({
        method: method.toUpperCase(),
        rawPath: `${prefix}/${path.replace(/^\/+/, '')}`,
        operationId: isMap(value) ? cleanWord(scalarText(get(value, 'operationId'))) : null,
        tags: isMap(value) ? tagsOf(get(value, 'tags')) : [],
        start: range[0],
        end: range[1],
      });
    }
  }
  return out;
}

/** A path item: the map itself, or the one its local `$ref` chain ends at; null (with the reason) otherwise. */
function resolveItem(root: YAMLMap, value: unknown, path: string, problems: Problems): YAMLMap | null {
  const seen = new Set<string>();
  let node = value;
  for (;;) {
    if (!isMap(node)) {
      problems.push({ severity: 'warning', code: 'openapi_paths', message: `path "${path}" is not an object: skipped` });
      return null;
    }
    const ref = scalarText(get(node, '$ref'));
    if (ref === null) return node;
    if (!ref.startsWith('#')) {
      // Another file: never read (it may be outside the repository, or a URL).
      problems.push({ severity: 'warning', code: 'openapi_external_ref', message: `path "${path}" refers to "${ref}" in another file: not followed` });
      return null;
    }
    if (seen.has(ref)) {
      problems.push({ severity: 'warning', code: 'openapi_ref_cycle', message: `path "${path}": $ref cycle through "${ref}": skipped` });
      return null;
    }
    seen.add(ref);
    node = pointer(root, ref);
    if (node === undefined) {
      problems.push({ severity: 'warning', code: 'openapi_ref_missing', message: `path "${path}" refers to "${ref}", which the document does not have: skipped` });
      return null;
    }
  }
}

/** A local JSON pointer (`#/paths/~1orders`) in the document, or undefined. */
function pointer(root: YAMLMap, ref: string): unknown {
  let node: unknown = root;
  for (const raw of ref.slice(1).split('/').slice(1)) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (isMap(node)) node = get(node, key);
    else if (isSeq(node) && /^\d+$/.test(key)) node = node.items[Number(key)];
    else return undefined;
  }
  return node;
}

function rangeOf(pair: Pair): [number, number] | null {
  const key = pair.key as YamlNode | null;
  const value = pair.value as YamlNode | null;
  const start = key?.range?.[0];
  const end = value?.range?.[1] ?? key?.range?.[1];
  return start === undefined || end === undefined ? null : [start, end];
}

function tagsOf(node: unknown): string[] {
  if (!isSeq(node)) return [];
  return node.items.map(scalarText).map(cleanTag).filter((t): t is string => t !== null);
}

/** An operationId as one word (the signature separates its parts with spaces). */
function cleanWord(s: string | null): string | null {
  const w = s?.trim().replace(/\s+/g, '_') ?? '';
  return w === '' ? null : w;
}

/** A tag without the characters the signature uses as separators. */
function cleanTag(s: string | null): string | null {
  const t = s?.replace(/[(),;]/g, ' ').replace(/\s+/g, ' ').trim() ?? '';
  return t === '' ? null : t;
}
