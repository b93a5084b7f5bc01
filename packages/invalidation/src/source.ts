import { createHash } from 'node:crypto';
import { closeSync, readSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { CaError, gitBlobId, safeOpenFile } from '@ca/schema';
import type { ContextTree } from './context.js';
import { isSemanticContextFile } from './discovery.js';
import type { BlobReader, GitRepository, GitTreeEntry } from './git.js';
import { DiskTree, GitTree, readRegularFile } from './tree.js';

/**
 * Where file versions come from: the working tree on disk, or a commit's tree read from git
 * objects (never by checking it out). Each version is content-addressed by its git blob id.
 */
export interface FileSource {
  readonly kind: 'worktree' | 'commit';
  /** The directory the source belongs to (the working tree, or the repository a commit is of). */
  readonly root: string;
  /** The commit a `commit` source reads; null for the working tree. */
  readonly commit: string | null;
  /** The tree discovery walks (sizes, kinds, small files such as .gitignore and package.json). */
  readonly tree: ContextTree;
  /**
   * The bytes of a file of at most `maxBytes`, or null with nothing thrown when it cannot be
   * read as a regular file of the repository (vanished, a link, a FIFO, grown past the cap).
   */
  read(path: string, blobId: string | undefined, maxBytes: number): Promise<Buffer | null>;
  /** Releases what the source holds (a git process). */
  close(): void;
}

/** The working tree: discovery over the disk, files read only as regular files inside the root. */
export class WorktreeSource implements FileSource {
  readonly kind = 'worktree' as const;
  readonly commit = null;
  readonly tree: ContextTree;
  private readonly rootReal: string;

  constructor(readonly root: string) {
    const disk = new DiskTree(root);
    this.rootReal = realpathSync(root);
    this.tree = Object.assign(disk, { hash: (path: string) => hashRegularFile(root, path) });
  }

  async read(path: string, _blobId: string | undefined, maxBytes: number): Promise<Buffer | null> {
    return readRegularFile(this.root, path, maxBytes, this.rootReal);
  }

  close(): void {}
}

/** Context files larger than this (a giant monorepo's lockfile is ~100 MB) are not hashed: they count as changed. */
const HASH_MAX_BYTES = 512 * (1 << 20);

/**
 * A sha1 of a regular file's bytes, read in chunks (a 50 MB lockfile never sits in memory
 * whole), opened through the schema's safe reader; `unreadable: <why>` otherwise (a FIFO, a
 * link, outside the repository, over 512 MiB), so an unreadable config counts as changed and
 * never blocks.
 */
function hashRegularFile(root: string, path: string): string {
  const opened = safeOpenFile(join(root, ...path.split('/')), { root, maxBytes: HASH_MAX_BYTES });
  if (!opened.ok) return `unreadable: ${opened.reason}`;
  try {
    const hash = createHash('sha1');
    const buf = Buffer.allocUnsafe(1 << 16);
    let total = 0;
    for (let n; (n = readSync(opened.fd, buf, 0, buf.length, null)) > 0; ) {
      total += n;
      // A file appended to without end while hashed stops here.
      if (total > HASH_MAX_BYTES) return `unreadable: grew past the ${HASH_MAX_BYTES}-byte cap`;
      hash.update(buf.subarray(0, n));
    }
    return hash.digest('hex');
  } catch (e) {
    return `unreadable: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`;
  } finally {
    closeSync(opened.fd);
  }
}

/** Small files a commit's discovery and context scan read, fetched before the (synchronous) walk. */
const PREFETCH_MAX_BYTES = 1 << 20;
const PREFETCH = /(^|\/)(\.gitignore|package\.json)$|\.(json|props|targets|csproj|sln|slnx|config)$/i;

/** A commit's tree, read from git objects; blobs through one long-lived `git cat-file --batch`. */
export class CommitSource implements FileSource {
  readonly kind = 'commit' as const;

  private constructor(
    readonly root: string,
    readonly commit: string,
    readonly tree: ContextTree,
    private readonly blobs: BlobReader,
  ) {}

  /** Lists `commit` (a full id, already resolved) and fetches the small files discovery reads. */
  static async open(repo: GitRepository, commit: string): Promise<CommitSource> {
    const entries = await repo.listTree(commit);
    const blobs = repo.openBlobReader();
    try {
      const small = new Map<string, Buffer>();
      const wanted = entries.filter((e) => e.type === 'blob' && !e.missing && e.mode !== '120000' && e.size <= PREFETCH_MAX_BYTES && (PREFETCH.test(e.path) || isSemanticContextFile(e.path.slice(e.path.lastIndexOf('/') + 1))));
      const read = await Promise.all(wanted.map((e) => blobs.read(e.oid)));
      wanted.forEach((e, i) => small.set(e.path, read[i]!));
      const byPath = new Map<string, GitTreeEntry>(entries.map((e) => [e.path, e]));
      const tree = Object.assign(new GitTree(entries, small), {
        hash: (path: string) => byPath.get(path)?.oid ?? 'unreadable: not in the commit',
      });
      return new CommitSource(repo.location.topLevel, commit, tree, blobs);
    } catch (e) {
      blobs.close();
      throw e;
    }
  }

  async read(path: string, blobId: string | undefined, maxBytes: number): Promise<Buffer | null> {
    if (blobId === undefined) throw new CaError('internal', `no blob id for ${path} in commit ${this.commit}`);
    const bytes = await this.blobs.read(blobId);
    if (bytes.length > maxBytes) return null;
    // The object store is content-addressed: what came back is what the tree names.
    if (gitBlobId(bytes) !== blobId) throw new CaError('io_error', `git returned other content for ${path} (${blobId})`);
    return bytes;
  }

  close(): void {
    this.blobs.close();
  }
}
