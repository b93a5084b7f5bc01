import { createHash, type Hash } from 'node:crypto';
import { createReadStream, createWriteStream, closeSync, fstatSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';
import { CaError } from '@ca/schema';
import type { SqliteDatabase } from './database.js';
import { LATEST_SCHEMA_VERSION } from './migrations.js';
import { cachedStatement, selectValue } from './statements.js';

// A portable index artifact (`ca export` / `ca import`, decision 045): one file holding
//   MAGIC | header length (uint32 BE) | header (JSON) | payload (the index database, gzip).
// The header says what the payload is (format, tool and schema versions, repository, labels,
// vector model, whether contents are kept) and carries the checksum that covers both: a flipped
// byte anywhere, or a cut file, is refused before anything is installed.

/** The first bytes of every artifact. */
export const ARTIFACT_MAGIC = Buffer.from('ca-index-artifact\n', 'ascii');
/** The artifact layout this code writes and reads; a newer one is refused. */
export const ARTIFACT_FORMAT = 1;
/** A header longer than this is not one this code wrote (labels are few; the header is small). */
const HEADER_MAX_BYTES = 1 << 20;
const PREFIX_BYTES = ARTIFACT_MAGIC.length + 4;
/** The `_metadata` key an exported index records what it left out under (read by `artifactOrigin`). */
export const ARTIFACT_METADATA_KEY = 'artifact_origin';

/** One label an artifact holds. */
export interface ArtifactLabel {
  readonly name: string;
  readonly kind: string;
  readonly commit: string | null;
  readonly files: number;
}

/** What an artifact's header says (everything but the payload). */
export interface ArtifactHeader {
  readonly format: number;
  /** The version of the tool (`@ca/store`) that wrote it. */
  readonly tool: string;
  readonly schemaVersion: number;
  /** The repository the index is of (the exporting checkout's directory name). */
  readonly repository: string;
  readonly labels: readonly ArtifactLabel[];
  /** The model the vectors come from, and how many; null when exported without vectors (or none were made). */
  readonly vectors: { readonly model: string; readonly revision: string; readonly dims: number; readonly count: number } | null;
  /** Whether stored file contents are kept (`--no-contents`: false). */
  readonly contents: boolean;
  readonly compression: 'gzip';
  /** Bytes of the database once decompressed. */
  readonly databaseBytes: number;
  /** Bytes of the payload that follows the header. */
  readonly payloadBytes: number;
  readonly createdAt: string;
  /** `sha256:` of the header without this field, a newline and the payload's sha256 (hex). */
  readonly checksum: string;
}

/** What an exported index recorded about its origin (`_metadata.artifact_origin`). */
export interface ArtifactOrigin {
  readonly repository: string;
  readonly createdAt: string;
  readonly vectors: boolean;
  readonly contents: boolean;
}

/** What `Store.exportArtifact` keeps. */
export interface ArtifactOptions {
  /** The repository name the header records. */
  readonly repository: string;
  /** Labels to keep (default: every complete label). */
  readonly labels?: readonly string[];
  /** Keep the vectors (default true). */
  readonly vectors?: boolean;
  /** Keep the stored file contents (default true). */
  readonly contents?: boolean;
}

let toolVersion: string | null = null;

/** The version of this package: what a header records as the writing tool. */
export function artifactToolVersion(): string {
  // src/ and dist/ both sit one level under the package root.
  toolVersion ??= (createRequire(import.meta.url)('../package.json') as { version: string }).version;
  return toolVersion;
}

/** Drops what an artifact leaves out of the copy `db` (never the live index): vectors, contents. */
export function pruneArtifactCopy(db: SqliteDatabase, options: { vectors: boolean; contents: boolean }): void {
  db.transaction(() => {
    if (!options.contents) db.exec(`DELETE FROM file_contents`);
    if (!options.vectors) {
      // The vec0 table is recreated empty (a DELETE keeps its preallocated chunks); the model goes
      // too, so the importer's next index embeds every node with its own model.
      const dims = Number(selectValue<string>(db, `SELECT value FROM _metadata WHERE key = 'embedding_dims'`) ?? '384');
      // A whole number checked here: DDL takes no parameters (as vectors.ts's `float[N]`).
      const width = Number.isInteger(dims) && dims > 0 ? dims : 384;
      db.exec(`DELETE FROM node_embeddings; DELETE FROM embeddings; DELETE FROM vector_snapshot_parts;
               DROP TABLE IF EXISTS vec_embeddings;
               CREATE VIRTUAL TABLE vec_embeddings USING vec0(embedding float[${width}]);
               DELETE FROM _metadata WHERE key IN ('embedding_model', 'embedding_revision', 'embedding_dims', 'vectors_snapshot');`);
    }
  })();
}

/** Records in the copy what it was exported with, so `ca status` after an import can say so. */
export function recordArtifactOrigin(db: SqliteDatabase, origin: ArtifactOrigin): void {
  cachedStatement(db, `INSERT INTO _metadata(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`).run(
    ARTIFACT_METADATA_KEY,
    JSON.stringify(origin),
  );
}

/** The origin an imported index recorded, or null (an index built here). */
export function artifactOriginOf(db: SqliteDatabase): ArtifactOrigin | null {
  const raw = selectValue<string>(db, `SELECT value FROM _metadata WHERE key = ?`, ARTIFACT_METADATA_KEY);
  if (raw === undefined || raw === null) return null;
  try {
    return JSON.parse(raw) as ArtifactOrigin;
  } catch {
    // A damaged record only loses the status line that names the origin: the index itself is fine.
    return null;
  }
}

/** The header's text that the checksum covers: the header without `checksum`, in its own key order. */
function checkedText(header: Omit<ArtifactHeader, 'checksum'> | ArtifactHeader): string {
  const { checksum: _omit, ...rest } = header as ArtifactHeader;
  return JSON.stringify(rest);
}

function checksumOf(header: Omit<ArtifactHeader, 'checksum'>, payloadSha256: string): string {
  return `sha256:${createHash('sha256').update(checkedText(header)).update('\n').update(payloadSha256).digest('hex')}`;
}

/** A pass-through stream that hashes and counts what flows through it. */
function hashing(hash: Hash, counter: { bytes: number }): Transform {
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      hash.update(chunk);
      counter.bytes += chunk.length;
      done(null, chunk);
    },
  });
}

/**
 * Compresses the database file `dbFile` (a pruned copy, closed) into the artifact `out`:
 * first the payload to `payloadFile` (the checksum needs it whole), then magic, header and
 * payload to `out`. The caller removes `payloadFile`.
 */
export async function packArtifact(
  dbFile: string,
  payloadFile: string,
  out: string,
  facts: Omit<ArtifactHeader, 'format' | 'tool' | 'compression' | 'databaseBytes' | 'payloadBytes' | 'checksum' | 'createdAt'>,
): Promise<ArtifactHeader> {
  const hash = createHash('sha256');
  const counter = { bytes: 0 };
  await pipeline(createReadStream(dbFile), createGzip({ level: 6 }), hashing(hash, counter), createWriteStream(payloadFile));
  const unsigned = {
    format: ARTIFACT_FORMAT,
    tool: artifactToolVersion(),
    schemaVersion: facts.schemaVersion,
    repository: facts.repository,
    labels: facts.labels,
    vectors: facts.vectors,
    contents: facts.contents,
    compression: 'gzip' as const,
    databaseBytes: statSync(dbFile).size,
    payloadBytes: counter.bytes,
    createdAt: new Date().toISOString(),
  };
  const header: ArtifactHeader = { ...unsigned, checksum: checksumOf(unsigned, hash.digest('hex')) };
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  const length = Buffer.alloc(4);
  length.writeUInt32BE(json.length);
  const sink = createWriteStream(out);
  sink.write(ARTIFACT_MAGIC);
  sink.write(length);
  sink.write(json);
  await pipeline(createReadStream(payloadFile), sink);
  return header;
}

function corrupt(file: string, why: string): CaError {
  return new CaError('artifact_corrupt', `${file} is a damaged index artifact: ${why}; export it again or fetch an intact copy`, { context: { path: file } });
}

/** Reads exactly `n` bytes at `position`, or fewer at the end of the file. */
function readAt(fd: number, n: number, position: number): Buffer {
  const buf = Buffer.alloc(n);
  let got = 0;
  while (got < n) {
    const r = readSync(fd, buf, got, n - got, position + got);
    if (r === 0) break;
    got += r;
  }
  return buf.subarray(0, got);
}

const HEADER_FIELDS: readonly [keyof ArtifactHeader, string][] = [
  ['format', 'number'],
  ['tool', 'string'],
  ['schemaVersion', 'number'],
  ['repository', 'string'],
  ['labels', 'object'],
  ['vectors', 'object'],
  ['contents', 'boolean'],
  ['compression', 'string'],
  ['databaseBytes', 'number'],
  ['payloadBytes', 'number'],
  ['createdAt', 'string'],
  ['checksum', 'string'],
];

function parseHeader(file: string, json: Buffer): ArtifactHeader {
  let header: ArtifactHeader;
  try {
    header = JSON.parse(json.toString('utf8')) as ArtifactHeader;
  } catch {
    // The JSON parser's own message (a position in bytes) says nothing more useful to a user.
    throw corrupt(file, 'its header is not valid JSON');
  }
  if (header === null || typeof header !== 'object') throw corrupt(file, 'its header is not an object');
  for (const [field, type] of HEADER_FIELDS) {
    if (typeof header[field] !== type) throw corrupt(file, `its header has no valid "${field}"`);
  }
  return header;
}

/**
 * The header of the artifact `file`, checked before any payload is read: the magic
 * (`artifact_invalid` when it is not an artifact), the header (`artifact_corrupt` when damaged),
 * the file's length against the header (`artifact_corrupt` when cut or padded), the format and
 * the schema version (`schema_too_new` when newer than this tool).
 */
export function readArtifactHeader(file: string): ArtifactHeader {
  return readHeader(file).header;
}

function readHeader(file: string): { header: ArtifactHeader; payloadOffset: number } {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (e) {
    throw new CaError('io_error', `cannot read ${file}: ${(e as Error).message}`, { cause: e, context: { path: file } });
  }
  try {
    const size = fstatSync(fd).size;
    const prefix = readAt(fd, PREFIX_BYTES, 0);
    if (prefix.length < ARTIFACT_MAGIC.length || !prefix.subarray(0, ARTIFACT_MAGIC.length).equals(ARTIFACT_MAGIC)) {
      throw new CaError('artifact_invalid', `${file} is not a ca index artifact (written by ca export)`, { context: { path: file } });
    }
    if (prefix.length < PREFIX_BYTES) throw corrupt(file, 'it ends before its header');
    const headerBytes = prefix.readUInt32BE(ARTIFACT_MAGIC.length);
    if (headerBytes === 0 || headerBytes > HEADER_MAX_BYTES) throw corrupt(file, `its header length (${headerBytes} bytes) is not plausible`);
    const json = readAt(fd, headerBytes, PREFIX_BYTES);
    if (json.length < headerBytes) throw corrupt(file, 'it ends inside its header (truncated)');
    const header = parseHeader(file, json);
    if (header.format > ARTIFACT_FORMAT) {
      throw new CaError('schema_too_new', `${file} is artifact format ${header.format}, newer than this ca reads (${ARTIFACT_FORMAT}); upgrade ca`, { context: { path: file } });
    }
    if (header.schemaVersion > LATEST_SCHEMA_VERSION) {
      throw new CaError(
        'schema_too_new',
        `${file} holds an index of schema version ${header.schemaVersion} (written by ca ${header.tool}), newer than this ca supports (${LATEST_SCHEMA_VERSION}); upgrade ca`,
        { context: { path: file } },
      );
    }
    const expected = PREFIX_BYTES + headerBytes + header.payloadBytes;
    if (size < expected) throw corrupt(file, `it is truncated (${size} of ${expected} bytes)`);
    if (size > expected) throw corrupt(file, `it has ${size - expected} bytes past its end`);
    return { header, payloadOffset: PREFIX_BYTES + headerBytes };
  } finally {
    closeSync(fd);
  }
}

/**
 * Checks the artifact `file` whole and writes its database to `target` (which must not exist):
 * the header first (`readArtifactHeader`), then the payload decompressed while its checksum is
 * computed. Any failure removes `target` and throws (`artifact_corrupt` for a damaged payload);
 * nothing else is touched. The caller opens `target` to migrate and check it.
 */
export async function unpackArtifact(file: string, target: string): Promise<ArtifactHeader> {
  const { header, payloadOffset } = readHeader(file);
  const hash = createHash('sha256');
  const compressed = { bytes: 0 };
  const written = { bytes: 0 };
  try {
    try {
      await pipeline(
        createReadStream(file, { start: payloadOffset }),
        hashing(hash, compressed),
        createGunzip(),
        hashing(createHash('sha256'), written),
        createWriteStream(target, { flags: 'wx' }),
      );
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code?.startsWith('Z_')) throw corrupt(file, `its payload does not decompress (${(e as Error).message})`);
      throw e;
    }
    if (checksumOf(header, hash.digest('hex')) !== header.checksum) throw corrupt(file, 'its checksum does not match its content');
    if (written.bytes !== header.databaseBytes) throw corrupt(file, `its database is ${written.bytes} bytes, the header says ${header.databaseBytes}`);
    return header;
  } catch (e) {
    rmSync(target, { force: true });
    throw e;
  }
}
