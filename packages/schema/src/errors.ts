/** Stable error codes. Tools downstream match on these strings; never rename one. */
export const ERROR_CODES = [
  'usage',
  'invalid_path',
  'not_found',
  'ambiguous_symbol',
  'config_invalid',
  'schema_too_new',
  'db_corrupt',
  'db_locked',
  'sqlite_too_old',
  'io_error',
  'parse_failed',
  'parse_timeout',
  'grammar_unavailable',
  'semantic_unavailable',
  'project_load_failed',
  'plugin_blocked',
  'timeout',
  'oom_restart',
  'backpressure',
  'model_unavailable',
  'invalid_query',
  'not_indexed',
  'unknown_label',
  'worker_crashed',
  'deadline_exceeded',
  'cancelled',
  'overloaded',
  'protocol_error',
  // The team store (PostgreSQL): server unreachable, credentials refused, pgvector not installed
  // or not created in the database, a role without write access asked to publish.
  'store_unreachable',
  'store_auth_failed',
  'store_extension_missing',
  'store_read_only',
  // Index artifacts (`ca import`): not an artifact, damaged (cut, a flipped byte, a bad
  // checksum), of another repository than the one it is imported into.
  'artifact_invalid',
  'artifact_corrupt',
  'artifact_mismatch',
  'internal',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/** Errors that are the caller's fault (CLI exit code 2). */
const USAGE_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'usage',
  'invalid_path',
  'ambiguous_symbol',
  'config_invalid',
  'invalid_query',
  'not_indexed',
  'unknown_label',
  'artifact_invalid',
  'artifact_mismatch',
]);

export interface CaErrorContext {
  readonly path?: string;
  readonly symbol?: string;
  readonly [key: string]: unknown;
}

/** The one base error of the project: a stable code, context fields and a preserved cause. */
export class CaError extends Error {
  override readonly name = 'CaError';
  readonly code: ErrorCode;
  readonly context: CaErrorContext;

  constructor(code: ErrorCode, message: string, options: { cause?: unknown; context?: CaErrorContext } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.context = options.context ?? {};
  }

  /** True when the error is a usage error (bad argument, bad path, ambiguous symbol). */
  get isUsage(): boolean {
    return USAGE_CODES.has(this.code);
  }

  toJSON(): { code: ErrorCode; message: string } {
    return { code: this.code, message: this.message };
  }
}

export function isCaError(e: unknown): e is CaError {
  return e instanceof CaError;
}

/** Normalises anything thrown into a CaError, keeping the original as `cause`. */
export function toCaError(e: unknown, fallback: ErrorCode = 'internal'): CaError {
  if (e instanceof CaError) return e;
  if (e instanceof Error) {
    const errno = (e as NodeJS.ErrnoException).code;
    if (errno === 'ENOENT' || errno === 'EACCES' || errno === 'EISDIR' || errno === 'ENOTDIR' || errno === 'ELOOP') {
      return new CaError('io_error', e.message, { cause: e });
    }
    if (errno === 'SQLITE_BUSY' || errno === 'SQLITE_LOCKED') return new CaError('db_locked', e.message, { cause: e });
    if (errno === 'SQLITE_CORRUPT' || errno === 'SQLITE_NOTADB') {
      return new CaError('db_corrupt', `the index is damaged (${e.message}): run \`ca index\` to rebuild it`, { cause: e });
    }
    if (errno === 'SQLITE_FULL') return new CaError('io_error', `the disk holding the index is full (${e.message})`, { cause: e });
    if (errno === 'SQLITE_READONLY' || errno?.startsWith('SQLITE_READONLY_')) {
      return new CaError('io_error', `the index cannot be written (${e.message})`, { cause: e });
    }
    if (errno === 'SQLITE_IOERR' || errno?.startsWith('SQLITE_IOERR_') || errno === 'SQLITE_CANTOPEN') {
      return new CaError('io_error', `I/O error on the index (${e.message})`, { cause: e });
    }
    if (errno === 'ENOSPC') return new CaError('io_error', `the disk is full (${e.message})`, { cause: e });
    if (errno === 'EROFS') return new CaError('io_error', `read-only file system (${e.message})`, { cause: e });
    return new CaError(fallback, e.message, { cause: e });
  }
  return new CaError(fallback, String(e));
}
