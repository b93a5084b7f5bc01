import { createHash } from 'node:crypto';

/**
 * Git's blob id of the content (`sha1("blob <length>\0" + bytes)`), so file versions read from
 * git and from disk agree. A string is hashed as its UTF-8 bytes.
 */
export function gitBlobId(content: Uint8Array | string): string {
  const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
}
