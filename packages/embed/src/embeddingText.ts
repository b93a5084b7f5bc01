import type { TokenCounter } from './tokenCounter.js';

/**
 * Default token budget of a symbol's main embedding text, special tokens included.
 * Throughput at this budget is in the package README ("Budget"); at 32 the header line alone
 * leaves no room for code. A starting point for retrieval eval, not a tuned value.
 */
export const DEFAULT_TEXT_TOKENS = 64;
/** Default budget of each extra body window (short preamble included). */
export const DEFAULT_WINDOW_TOKENS = 128;
/** Default cap on extra body windows per symbol (the main text is window 0). */
export const DEFAULT_MAX_WINDOWS = 2;

/** What a symbol's embedding text is made of (plain fields, so any adapter can fill it). */
export interface EmbeddingTextInput {
  /** `ts`, `js`, `cs`. */
  readonly language: string;
  /** Repo-relative POSIX path. */
  readonly path: string;
  /** Containers outermost first, ending with the symbol itself: `['MyApp.Billing', 'BillingAccount', 'terminatePlan']`. */
  readonly containerChain: readonly string[];
  readonly kind: string;
  readonly signature: string;
  readonly doc: string | null;
  /** The symbol's source with body-bearing children collapsed (ExtractedNode.chunkText). */
  readonly chunkText: string;
  /** Signatures of types the symbol uses, appended last (so they go first when the budget is short). */
  readonly referencedTypeSignatures?: readonly string[];
}

/** What a file node's embedding text is made of. */
export interface FileEmbeddingTextInput {
  readonly path: string;
  readonly language: string;
  readonly exports: readonly string[];
  readonly imports: readonly string[];
  readonly headerDoc: string | null;
}

export interface EmbeddingTextsOptions {
  /** Budget of the main text (default DEFAULT_TEXT_TOKENS). */
  readonly tokenBudget?: number;
  /** Budget of each extra body window (default DEFAULT_WINDOW_TOKENS). */
  readonly windowTokens?: number;
  /** Extra windows at most (default DEFAULT_MAX_WINDOWS); 0 = main text only. */
  readonly maxWindows?: number;
}

const DOC_LINES = 2;
const DOC_CHARS = 240;
const FILE_LIST_ITEMS = 24;

/**
 * Whitespace inside a line carries no tokens for a WordPiece model, so lines are trimmed and
 * runs collapsed: re-indenting code then keeps its content hash (and its cached vector).
 */
export function collapseLines(text: string): string {
  return text
    .split(/\r?\n/)
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .filter((line) => line.length > 0)
    .join('\n');
}

/**
 * Doc comment → plain first lines: strips `/** * *\/`, `///`, `//` and XML doc tags
 * (`<summary>`, `<param name="x">`), keeps at most two lines / 240 characters.
 */
export function docSummary(doc: string | null): string {
  if (!doc) return '';
  const lines = doc
    .replace(/<\/?(summary|remarks|returns|para|c|code|example)\s*>/gi, ' ')
    .replace(/<(param|typeparam|exception)\s+[^>]*>/gi, ' ')
    .replace(/<\/(param|typeparam|exception)>/gi, ' ')
    .replace(/<see\s+cref="([^"]*)"\s*\/>/gi, '$1')
    .split(/\r?\n/)
    .map((l) =>
      l
        .replace(/^\s*\/\*\*?/, '')
        .replace(/\*\/\s*$/, '')
        .replace(/^\s*\/\/\/?/, '')
        .replace(/^\s*\*(?!\/)/, '')
        .replace(/\s+/g, ' ')
        .trim(),
    )
    .filter((l) => l.length > 0);
  const joined = lines.slice(0, DOC_LINES).join(' ');
  return joined.length > DOC_CHARS ? `${joined.slice(0, DOC_CHARS).replace(/\s+\S*$/, '')}…` : joined;
}

/** `ts · src/billing/billingAccount.ts · BillingAccount > terminatePlan · method` */
export function headerLine(input: Pick<EmbeddingTextInput, 'language' | 'path' | 'containerChain' | 'kind'>): string {
  const parts = [input.language, input.path];
  if (input.containerChain.length > 0) parts.push(input.containerChain.join(' > '));
  parts.push(input.kind);
  return parts.join(' · ');
}

/** Header, signature and doc lines; the signature (doc) is dropped when the chunk already starts with (contains) it. */
function preambleLines(input: EmbeddingTextInput, chunk: string): string[] {
  const lines = [headerLine(input)];
  const chunkHead = chunk.split('\n', 4).join(' ');
  const signature = input.signature.replace(/\s+/g, ' ').trim();
  const doc = docSummary(input.doc);
  if (signature && !chunkHead.includes(signature)) lines.push(signature);
  if (doc && !chunk.includes(doc.replace(/…$/, ''))) lines.push(doc);
  return lines;
}

/**
 * A symbol's main embedding text: preamble (header line, signature, doc summary) then the
 * collapsed chunk text, then referenced type signatures, truncated token-aware to `tokenBudget`
 * (special tokens included, so `counter.countTokens(result) <= tokenBudget`).
 */
export function buildEmbeddingText(input: EmbeddingTextInput, tokenBudget: number, counter: TokenCounter): string {
  const chunk = collapseLines(input.chunkText);
  const parts = [...preambleLines(input, chunk)];
  if (chunk) parts.push(chunk);
  const refs = (input.referencedTypeSignatures ?? []).map((s) => s.replace(/\s+/g, ' ').trim()).filter(Boolean);
  if (refs.length > 0) parts.push(`uses: ${refs.join('; ')}`);
  return counter.truncateToTokens(parts.join('\n'), tokenBudget);
}

/**
 * Windows of a body, in order, each at most `windowTokens` (special tokens included), cut at
 * line ends when a line end falls in the second half of the window, else at a word boundary.
 * No overlap. At most `maxWindows`; the rest of the body is not covered.
 */
export function bodyWindows(chunkText: string, windowTokens: number, counter: TokenCounter, maxWindows: number): string[] {
  const windows: string[] = [];
  let rest = collapseLines(chunkText);
  while (rest.length > 0 && windows.length < maxWindows) {
    let piece = counter.truncateToTokens(rest, windowTokens);
    if (piece.length === 0) break; // budget below the special tokens: nothing fits
    if (piece.length < rest.length) {
      const nl = piece.lastIndexOf('\n');
      if (nl > piece.length / 2) piece = piece.slice(0, nl);
    }
    windows.push(piece);
    rest = rest.slice(piece.length).replace(/^\s+/, '');
  }
  return windows;
}

/**
 * The texts to embed for one symbol: `[main, ...windows]`. The main text is
 * `buildEmbeddingText`; when it could not hold the whole chunk, extra windows cover the body
 * from where the main text stopped, each prefixed with the header line so the window still
 * says which symbol it belongs to. All vectors are keyed to the same symbol (window 0, 1, …).
 */
export function buildEmbeddingTexts(
  input: EmbeddingTextInput,
  options: EmbeddingTextsOptions,
  counter: TokenCounter,
): string[] {
  const budget = options.tokenBudget ?? DEFAULT_TEXT_TOKENS;
  const windowTokens = options.windowTokens ?? DEFAULT_WINDOW_TOKENS;
  const maxWindows = options.maxWindows ?? DEFAULT_MAX_WINDOWS;
  const main = buildEmbeddingText(input, budget, counter);
  if (maxWindows <= 0) return [main];
  const chunk = collapseLines(input.chunkText);
  const preamble = preambleLines(input, chunk).join('\n');
  const fullMain = chunk ? `${preamble}\n${chunk}` : preamble;
  // `main` is a prefix of the untruncated text; whatever of the chunk lies beyond it is unseen.
  const coveredChunk = Math.max(0, main.length - (preamble.length + 1));
  if (main.length >= fullMain.length || !chunk) return [main];
  const rest = main.length <= preamble.length ? chunk : chunk.slice(coveredChunk).replace(/^\s+/, '');
  const header = headerLine(input);
  // Concatenating at a newline adds the two texts' tokens minus one pair of special tokens.
  const special = counter.countTokens('');
  const bodyBudget = windowTokens - (counter.countTokens(header) - special);
  if (bodyBudget <= special) return [main];
  const windows = bodyWindows(rest, bodyBudget, counter, maxWindows);
  return [main, ...windows.map((w) => counter.truncateToTokens(`${header}\n${w}`, windowTokens))];
}

/**
 * A file node's embedding text: header line, header doc, exported and imported names, truncated
 * to `tokenBudget`. Lists are capped at 24 items (a barrel file exports hundreds).
 */
export function buildFileEmbeddingText(input: FileEmbeddingTextInput, tokenBudget: number, counter: TokenCounter): string {
  const lines = [`${input.language} · ${input.path} · file`];
  const doc = docSummary(input.headerDoc);
  if (doc) lines.push(doc);
  const list = (items: readonly string[]): string => {
    const shown = items.slice(0, FILE_LIST_ITEMS).join(', ');
    return items.length > FILE_LIST_ITEMS ? `${shown}, … (${items.length - FILE_LIST_ITEMS} more)` : shown;
  };
  if (input.exports.length > 0) lines.push(`exports: ${list(input.exports)}`);
  if (input.imports.length > 0) lines.push(`imports: ${list(input.imports)}`);
  return counter.truncateToTokens(lines.join('\n'), tokenBudget);
}
