import {
  contractKey,
  formatOperationSignature,
  operationLinkKey,
  symbolKey,
  type Diagnostic,
  type ExtractedEdge,
  type ExtractedNode,
  type FileIndex,
  type Language,
  type LanguageAdapter,
  type LanguageSupport,
  type SourceFile,
  type Span,
} from '@ca/schema';
import { readOpenApi, type DocumentProblem } from './document.js';
import { normalizeOperationPath } from './path.js';

/** Bumped whenever the operation nodes change, so stored documents are read again. */
export const OPENAPI_EXTRACTOR_VERSION = 'openapi-1';
/** The language id of OpenAPI/Swagger documents. */
export const OPENAPI_LANGUAGE: Language = 'openapi';
/**
 * The documents read, by file name (lower case): the names the OpenAPI/Swagger tools write
 * (`openapi.json`, `swagger.yaml` …) and NSwag's `specification.json`. Other JSON/YAML files are
 * not opened (decision 049).
 */
export const OPENAPI_FILE_NAMES: readonly string[] = [
  'openapi.json',
  'openapi.yaml',
  'openapi.yml',
  'swagger.json',
  'swagger.yaml',
  'swagger.yml',
  'specification.json',
];
/**
 * Documents over this many characters are not parsed (the yaml library builds a tree of the
 * whole document): the file says so and the rest of the repository is indexed.
 */
export const MAX_DOCUMENT_CHARS = 8 * 1024 * 1024;
/** The most operations one document yields; past it the file is `partial` and says so. */
export const MAX_OPERATIONS = 10_000;
/** The longest chunk text an operation keeps (the span still covers all of it). */
const MAX_CHUNK_CHARS = 4000;

const NAMES: ReadonlySet<string> = new Set(OPENAPI_FILE_NAMES);

/** `openapi` for a path whose file name is one of {@link OPENAPI_FILE_NAMES}, else null. */
export function openApiLanguageOf(path: string): Language | null {
  return NAMES.has(path.slice(path.lastIndexOf('/') + 1).toLowerCase()) ? OPENAPI_LANGUAGE : null;
}

/** Character offsets → spans (1-based lines, UTF-8 byte offsets). */
class Offsets {
  private readonly lineStarts: number[] = [0];
  private readonly ascii: boolean;
  constructor(private readonly text: string) {
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) this.lineStarts.push(i + 1);
    // eslint-disable-next-line no-control-regex
    this.ascii = !/[^\x00-\x7f]/.test(text);
  }
  get lineCount(): number {
    return this.text.length === 0 ? 0 : this.text.endsWith('\n') ? this.lineStarts.length - 1 : this.lineStarts.length;
  }
  line(at: number): number {
    let lo = 0;
    let hi = this.lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.lineStarts[mid]! <= at) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  }
  byte(at: number): number {
    return this.ascii ? at : Buffer.byteLength(this.text.slice(0, at), 'utf8');
  }
  span(start: number, end: number): Span {
    return { startLine: this.line(start), endLine: this.line(Math.max(start, end - 1)), startByte: this.byte(start), endByte: this.byte(end) };
  }
}

function node(fields: Pick<ExtractedNode, 'localId' | 'kind' | 'name' | 'qualifiedName' | 'symbolKey' | 'disambiguator' | 'parentLocalId' | 'span' | 'signature' | 'chunkText'>): ExtractedNode {
  return { ...fields, parameterCount: null, returnType: null, modifiers: [], isPublicApi: true, doc: null };
}

function diagnostic(p: DocumentProblem, offsets: Offsets): Diagnostic {
  return p.at === undefined ? { severity: p.severity, code: p.code, message: p.message } : { severity: p.severity, code: p.code, message: p.message, line: offsets.line(p.at) };
}

/**
 * One OpenAPI/Swagger document: a file node and one `endpoint` node per operation (key
 * `contract:GET /api/orders/{id}`), each with an unresolved `handles` edge the engine's linker
 * points at the C# endpoint serving it. Pure, synchronous, never throws.
 */
export function parseOpenApiFile(file: SourceFile): FileIndex {
  const offsets = new Offsets(file.text);
  const path = file.path;
  const fileKey = symbolKey({ language: OPENAPI_LANGUAGE, scope: { kind: 'file', path }, containers: [], name: '', kind: 'file' });
  const fileNode = node({ localId: 'n0', kind: 'file', name: path.slice(path.lastIndexOf('/') + 1), qualifiedName: path, symbolKey: fileKey, disambiguator: 0, parentLocalId: null, span: offsets.span(0, file.text.length), signature: path, chunkText: '' });
  const result = (status: FileIndex['parseStatus'], nodes: ExtractedNode[], edges: ExtractedEdge[], diagnostics: Diagnostic[]): FileIndex => ({
    path,
    language: OPENAPI_LANGUAGE,
    parseStatus: status,
    generated: false,
    lineCount: offsets.lineCount,
    nodes,
    edges,
    diagnostics,
    exports: [],
    reExports: [],
  });
  if (file.text.length > MAX_DOCUMENT_CHARS) {
    const message = `OpenAPI document of ${file.text.length} characters, over the ${MAX_DOCUMENT_CHARS} the contract reader parses: not read`;
    return result('skipped', [fileNode], [], [{ severity: 'error', code: 'openapi_too_large', message }]);
  }
  const doc = readOpenApi(file.text);
  const diagnostics = doc.problems.map((p) => diagnostic(p, offsets));
  if (doc.version === null) return result('error', [fileNode], [], diagnostics);
  const nodes: ExtractedNode[] = [{ ...fileNode, signature: `${path} (${doc.version})`, chunkText: doc.version }];
  const edges: ExtractedEdge[] = [];
  const seen = new Map<string, number>();
  let partial = doc.problems.some((p) => p.severity !== 'info');
  for (const op of doc.operations.slice(0, MAX_OPERATIONS)) {
    const template = normalizeOperationPath(op.rawPath);
    const name = `${op.method} ${template}`;
    const key = contractKey(op.method, template);
    const d = seen.get(key) ?? 0;
    seen.set(key, d + 1);
    const localId = `n${nodes.length}`;
    const span = offsets.span(op.start, op.end);
    const text = file.text.slice(op.start, op.end);
    nodes.push(
      node({
        localId,
        kind: 'endpoint',
        name,
        qualifiedName: name,
        symbolKey: key,
        disambiguator: d,
        parentLocalId: 'n0',
        span,
        signature: formatOperationSignature({ method: op.method, template, operationId: op.operationId, tags: op.tags }),
        chunkText: text.length <= MAX_CHUNK_CHARS ? text : `${text.slice(0, MAX_CHUNK_CHARS)}…`,
      }),
    );
    edges.push({ sourceLocalId: 'n0', type: 'contains', confidence: 'exact', target: { key, name, localId }, line: span.startLine });
    // Unlinked: the engine's linker resolves it to the C# endpoint with the match's confidence.
    edges.push({ sourceLocalId: localId, type: 'handles', confidence: 'approximate', target: { key: operationLinkKey(op.method, template), name }, line: span.startLine });
  }
  if (doc.operations.length > MAX_OPERATIONS) {
    partial = true;
    diagnostics.push({ severity: 'warning', code: 'openapi_too_many_operations', message: `${doc.operations.length} operations, the first ${MAX_OPERATIONS} read` });
  }
  return result(partial ? 'partial' : 'ok', nodes, edges, diagnostics);
}

/** The adapter of OpenAPI/Swagger documents (no grammar to load). */
export function createOpenApiAdapter(): LanguageAdapter {
  return {
    id: 'openapi',
    extensions: [],
    extractorVersion: OPENAPI_EXTRACTOR_VERSION,
    languageOf: openApiLanguageOf,
    parse: parseOpenApiFile,
  };
}

/**
 * OpenAPI 3.x and Swagger 2.0 documents (`openapi`), claimed by file name: their operations as
 * contract endpoint nodes. No semantic pass; the engine links them to C# endpoints and client calls.
 */
export const openApiLanguage: LanguageSupport = {
  id: 'openapi',
  languages: [OPENAPI_LANGUAGE],
  extensions: [],
  fileNames: OPENAPI_FILE_NAMES,
  languageOf: openApiLanguageOf,
  createAdapter: () => Promise.resolve(createOpenApiAdapter()),
  worker: { module: '@ca/parse-openapi', export: 'openApiLanguage' },
};
