import { closeSync, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { CaError } from '@ca/schema';

/** SQLite's file header: magic, page size at 16, file change counter at 24, page count at 28, version-valid-for at 92. */
const HEADER_BYTES = 100;

/**
 * Refuses an index file shorter than its own header says (a truncated copy, a disk that filled
 * mid-write): SQLite would answer queries from the pages that remain and fail only on those
 * that do not, so part of an answer could silently be missing. O(1): reads the 100-byte header.
 * A file without a valid header is left to SQLite (which calls it "not a database").
 */
export function assertNotTruncated(path: string): void {
  // With WAL frames present the file may legitimately be shorter than its header says: a
  // checkpoint writes page 1 first and extends the file as it goes, and an interrupted one is
  // redone from the WAL. Only a file without a WAL must hold every page itself.
  try {
    if (statSync(`${path}-wal`).size > 0) return;
  } catch {
    // No WAL file: the check below applies.
  }
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    // Missing or unreadable: the open that follows reports it.
    return;
  }
  try {
    const size = fstatSync(fd).size;
    if (size < HEADER_BYTES) return;
    const h = Buffer.alloc(HEADER_BYTES);
    readSync(fd, h, 0, HEADER_BYTES, 0);
    if (h.toString('latin1', 0, 16) !== 'SQLite format 3\0') return;
    const raw = h.readUInt16BE(16);
    const pageSize = raw === 1 ? 65536 : raw;
    const pages = h.readUInt32BE(28);
    // The page count is only valid when the change counter matches version-valid-for (SQLite ≥ 3.7.0 keeps them equal).
    if (h.readUInt32BE(24) !== h.readUInt32BE(92) || pages === 0 || pageSize < 512) return;
    const expected = pages * pageSize;
    if (size < expected) {
      throw new CaError('db_corrupt', `index ${path} is truncated: ${size} bytes, its header says ${pages} pages of ${pageSize} bytes (${expected}); run \`ca index\` to rebuild it`, {
        context: { path },
      });
    }
  } finally {
    closeSync(fd);
  }
}
