import { decodeSource, extractorOf, ftsTextOf, gitBlobId, sourceByteMap, type DecodedSource, type FileIndex, type FtsText, type Language, type LanguageAdapter, type ParseStatus } from '@ca/schema';

/** What processing one file yields: everything the writer needs except project/mtime. */
export interface ProcessedFile {
  readonly path: string;
  readonly contentHash: string;
  readonly language: Language | null;
  readonly size: number;
  readonly lineCount: number;
  readonly parseStatus: ParseStatus;
  readonly statusReason: string | null;
  readonly generated: boolean;
  readonly extractor: string;
  readonly index: FileIndex | null;
  /** FTS text per node, computed here so the single writer thread does less. */
  readonly fts?: readonly FtsText[];
}

/**
 * A parse of the decoded text with its spans moved to the file's own bytes: parsers report UTF-8
 * offsets of the text they were given, which are the file's offsets only for UTF-8 without a
 * byte order mark (decision 025).
 */
function inFileBytes(index: FileIndex, source: DecodedSource): FileIndex {
  if (source.encoding === 'utf-8' && source.bomBytes === 0) return index;
  const at = sourceByteMap(source);
  return { ...index, nodes: index.nodes.map((n) => ({ ...n, span: { ...n.span, startByte: at(n.span.startByte), endByte: at(n.span.endByte) } })) };
}

/** Lines of a file's text as the index counts them (a last line without a newline counts). */
export function countLines(text: string): number {
  if (text.length === 0) return 0;
  let n = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  if (text.endsWith('\n')) n--;
  return n;
}

/** Heuristic for generated bundles: very long lines on average or one huge line. */
export function looksMinified(text: string): boolean {
  if (text.length < 4096) return false;
  const lines = countLines(text);
  if (text.length / Math.max(lines, 1) > 300) return true;
  let longest = 0;
  let start = 0;
  for (let i = text.indexOf('\n'); ; i = text.indexOf('\n', i + 1)) {
    const end = i === -1 ? text.length : i;
    longest = Math.max(longest, end - start);
    if (i === -1) break;
    start = i + 1;
  }
  return longest > 20_000;
}

function isBinary(bytes: Uint8Array): boolean {
  const n = Math.min(bytes.length, 8192);
  for (let i = 0; i < n; i++) if (bytes[i] === 0) return true;
  return false;
}

/** A file whose bytes could not be read (vanished, not a regular file, over the size cap). */
export function unreadableFile(path: string, language: Language | null, extractor: string, reason: string): ProcessedFile {
  return {
    path,
    contentHash: `unreadable:${Date.now()}`,
    language,
    size: 0,
    lineCount: 0,
    parseStatus: 'error',
    statusReason: `unreadable: ${reason}`,
    generated: false,
    extractor,
    index: null,
  };
}

/**
 * Classifies and parses one file's bytes (read by the file source). Never throws: binary,
 * minified or unparsable files come back with a status and a reason. `fts`: the nodes' FTS
 * texts are computed here (a parse worker's time, not the writer's); without, the writer
 * computes those it writes (an edited file's unchanged nodes keep their rows).
 */
export async function processFile(bytes: Uint8Array, path: string, adapter: LanguageAdapter, deadlineMs: number, fts = true): Promise<ProcessedFile> {
  const extractor = extractorOf(adapter, path);
  const language = adapter.languageOf(path);
  const contentHash = gitBlobId(bytes);
  const base = { path, contentHash, language, size: bytes.length, extractor, generated: false };
  // UTF-16 text is full of NUL bytes: decode it (byte order mark) before the binary check.
  const utf16 = bytes.length >= 2 && ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff));
  if (!utf16 && isBinary(bytes)) {
    return { ...base, lineCount: 0, parseStatus: 'skipped', statusReason: 'binary file (NUL bytes)', index: null };
  }
  const source = decodeSource(bytes);
  if (source === null) {
    return { ...base, lineCount: 0, parseStatus: 'skipped', statusReason: 'UTF-16 text that does not decode (odd length or unpaired surrogates)', index: null };
  }
  const text = source.text;
  const lineCount = countLines(text);
  if (looksMinified(text)) {
    return { ...base, lineCount, parseStatus: 'skipped', statusReason: 'minified or bundled code (very long lines)', index: null };
  }
  let index: FileIndex;
  try {
    index = inFileBytes(await adapter.parse({ path, text }, { deadlineMs }), source);
  } catch (e) {
    return { ...base, lineCount, parseStatus: 'error', statusReason: `parser failed: ${(e as Error).message}`, index: null };
  }
  const parseStatus = index.parseStatus;
  // A file that is not `ok` always says why: its first error, else its first warning (the TS
  // adapter reports recovered syntax errors as one), else that the parser had to recover.
  const why = index.diagnostics.find((d) => d.severity === 'error') ?? index.diagnostics.find((d) => d.severity === 'warning');
  const parseNote = index.parseStatus !== 'ok' ? (why?.message ?? 'syntax errors: the parser recovered, symbols may be incomplete') : null;
  return {
    ...base,
    lineCount,
    parseStatus,
    statusReason: parseNote,
    generated: index.generated,
    index,
    ...(fts ? { fts: index.nodes.map(ftsTextOf) } : {}),
  };
}
