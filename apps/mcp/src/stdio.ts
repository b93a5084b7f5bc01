import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** Bytes one stdio message may take by default: far above any real request, far below a memory problem. */
export const DEFAULT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

/** JSON-RPC error codes the transport answers with itself. */
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
/** A request other than initialize and ping before initialize (the spec's "server not initialized"). */
const NOT_INITIALIZED = -32002;

type Id = string | number | null;

/**
 * MCP over newline-delimited JSON on a pair of streams, hardened against what a broken or
 * hostile client sends, none of which ends the server:
 * - a message longer than `maxMessageBytes` is dropped as it streams in (never buffered whole)
 *   and answered with an Invalid Request error;
 * - a line that is not JSON gets a Parse error (id null); JSON that is not a JSON-RPC 2.0
 *   message (a wrong `jsonrpc`, no `method`, a batch) gets an Invalid Request error with its id
 *   when it has one;
 * - a request before `initialize` gets a "server not initialized" error;
 * - deeply nested JSON is parsed by V8's iterative parser and checked without recursion by
 *   the message schema, and a parse that still throws (a RangeError) is a Parse error.
 * The SDK's StdioServerTransport instead closes on an oversized frame (the process then exits
 * 0) and only logs invalid messages, so the client waits for its timeout.
 */
export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private chunks: Buffer[] = [];
  private buffered = 0;
  /** Bytes of the oversized message being dropped (until its newline), or -1 when none is. */
  private dropping = -1;
  private initialized = false;
  private closed = false;
  private readonly maxBytes: number;

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    options: { maxMessageBytes?: number } = {},
  ) {
    this.maxBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  }

  private readonly onData = (chunk: Buffer): void => {
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(0x0a, start);
      const end = nl === -1 ? chunk.length : nl;
      const piece = chunk.subarray(start, end);
      if (this.dropping >= 0) {
        this.dropping += piece.length;
      } else if (this.buffered + piece.length > this.maxBytes) {
        this.dropping = this.buffered + piece.length;
        this.chunks = [];
        this.buffered = 0;
      } else if (piece.length > 0) {
        this.chunks.push(piece);
        this.buffered += piece.length;
      }
      if (nl === -1) break;
      start = nl + 1;
      if (this.dropping >= 0) {
        const size = this.dropping;
        this.dropping = -1;
        this.reply(null, INVALID_REQUEST, `message of ${size} bytes is over the limit of ${this.maxBytes} bytes; it was dropped`);
      } else {
        const line = Buffer.concat(this.chunks, this.buffered).toString('utf8').replace(/\r$/, '');
        this.chunks = [];
        this.buffered = 0;
        if (line.trim() !== '') this.handleLine(line);
      }
    }
  };

  private readonly onEnd = (): void => {
    void this.close();
  };

  private readonly onStreamError = (e: Error): void => {
    this.onerror?.(e);
  };

  async start(): Promise<void> {
    this.input.on('data', this.onData);
    this.input.on('end', this.onEnd);
    this.input.on('error', this.onStreamError);
  }

  private handleLine(line: string): void {
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch (e) {
      this.reply(null, PARSE_ERROR, `Parse error: ${e instanceof Error ? e.message : String(e)}`);
      return;
    }
    const id = idOf(raw);
    if (Array.isArray(raw)) {
      this.reply(null, INVALID_REQUEST, 'Invalid Request: batches are not supported; send one message per line');
      return;
    }
    let parsed: ReturnType<typeof JSONRPCMessageSchema.safeParse>;
    try {
      parsed = JSONRPCMessageSchema.safeParse(raw);
    } catch (e) {
      // A RangeError from a structure too deep to check: refused like any invalid message.
      this.reply(id, INVALID_REQUEST, `Invalid Request: ${e instanceof Error ? e.message : String(e)}`);
      return;
    }
    if (!parsed.success) {
      const why =
        typeof raw !== 'object' || raw === null
          ? 'not a JSON-RPC message object'
          : (raw as { jsonrpc?: unknown }).jsonrpc !== '2.0'
            ? 'jsonrpc must be "2.0"'
            : !('method' in raw) && !('result' in raw) && !('error' in raw)
              ? 'a request needs a method'
              : 'not a valid JSON-RPC 2.0 message';
      this.reply(id, INVALID_REQUEST, `Invalid Request: ${why}`);
      return;
    }
    const message = parsed.data;
    if (!this.initialized && 'method' in message) {
      if (message.method === 'initialize') this.initialized = true;
      else if ('id' in message && message.method !== 'ping') {
        this.reply(message.id as Id, NOT_INITIALIZED, `Server not initialized: send initialize before ${message.method}`);
        return;
      }
    }
    this.onmessage?.(message);
  }

  /** A JSON-RPC error response written by the transport itself. */
  private reply(id: Id, code: number, message: string): void {
    this.onerror?.(new Error(message));
    void this.send({ jsonrpc: '2.0', id, error: { code, message } } as unknown as JSONRPCMessage);
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      if (this.output.write(`${JSON.stringify(message)}\n`)) resolve();
      else this.output.once('drain', resolve);
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off('data', this.onData);
    this.input.off('end', this.onEnd);
    this.input.off('error', this.onStreamError);
    this.chunks = [];
    this.onclose?.();
  }
}

/** The id of a would-be request, when it has a usable one. */
function idOf(raw: unknown): Id {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return null;
  const id = (raw as { id?: unknown }).id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}
