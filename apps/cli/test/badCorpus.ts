/**
 * The bad-input corpus (issue 22): hostile and odd files and arguments, generated at test time
 * (nothing large is committed). Each kind states its expected outcome — indexed with a given
 * status, skipped with a given reason, absent (never a source file), or for arguments an exit
 * code and error code — and never a crash, a hang or an SQL error. `badInputs.test.ts` indexes
 * one repository holding every file kind once, then runs every argument kind against it through
 * the built CLI.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** What a file of the corpus becomes in the index (`fileStatuses` of the working label). */
export type FileOutcome =
  | { readonly outcome: 'indexed'; readonly status: 'ok' | 'partial'; readonly reason?: string | RegExp }
  | { readonly outcome: 'skipped'; readonly reason: string | RegExp }
  | { readonly outcome: 'error'; readonly reason: string | RegExp }
  | { readonly outcome: 'absent' };

export interface FileKind {
  readonly kind: string;
  /** Writes the kind's files into `repo`; returns the expected outcome per repo-relative path. */
  readonly make: (repo: string, env: CorpusEnv) => Record<string, FileOutcome>;
}

export interface CorpusEnv {
  /** Running as root: permission bits do not stop reads (chmod 000 files are still read). */
  readonly root: boolean;
  /** `indexing.max_file_bytes` of the run. */
  readonly maxFileBytes: number;
}

const ok: FileOutcome = { outcome: 'indexed', status: 'ok' };
const MINIFIED = 'minified or bundled code (very long lines)';
const SECRET = 'secret file (named like credentials or keys): not indexed; see indexing.index_secrets and indexing.secret_allow';
const OUTSIDE = 'symbolic link to a path outside the repository';
/** One unterminated construct: tree-sitter recovers with one ERROR region (the TS adapter counts them). */
const ONE_TS_SYNTAX_ERROR = '1 syntax error (ERROR/MISSING nodes); symbols may be incomplete';
/** The C# adapter names no count. */
const CS_SYNTAX_ERROR = 'syntax error';

function write(repo: string, path: string, content: string | Buffer): void {
  const abs = join(repo, path);
  mkdirSync(dirname(abs), { recursive: true });
  writeFileSync(abs, content);
}

function link(repo: string, path: string, target: string): void {
  const abs = join(repo, path);
  mkdirSync(dirname(abs), { recursive: true });
  symlinkSync(target, abs);
}

function fifo(repo: string, path: string): void {
  const abs = join(repo, path);
  mkdirSync(dirname(abs), { recursive: true });
  const r = spawnSync('mkfifo', [abs], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`mkfifo ${abs}: ${r.stderr}`);
}

/** How many tiny files the `many-tiny-files` kind writes. */
export const TINY_FILES = 20_000;

export const FILE_KINDS: readonly FileKind[] = [
  {
    kind: 'minified bundle (one 30,000-character line)',
    make: (repo) => {
      write(repo, 'minified/bundle.js', `${'var a=1;'.repeat(3750)}\n`);
      return { 'minified/bundle.js': { outcome: 'skipped', reason: MINIFIED } };
    },
  },
  {
    kind: 'minified by name (.min.js)',
    make: (repo) => {
      write(repo, 'minified/vendor.min.js', 'var a = 1;\n');
      return { 'minified/vendor.min.js': { outcome: 'skipped', reason: 'minified bundle (.min.js)' } };
    },
  },
  {
    kind: 'binary with a source extension',
    make: (repo) => {
      write(repo, 'binary/image.ts', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]));
      return { 'binary/image.ts': { outcome: 'skipped', reason: 'binary file (NUL bytes)' } };
    },
  },
  {
    kind: 'invalid UTF-8 (TS): read as Windows-1252 (decision 025)',
    make: (repo) => {
      write(repo, 'enc/latin1.ts', Buffer.concat([Buffer.from('export const s = "caf'), Buffer.from([0xe9]), Buffer.from('";\n')]));
      return { 'enc/latin1.ts': ok };
    },
  },
  {
    kind: 'invalid UTF-8 (C#): read as Windows-1252 (decision 025)',
    make: (repo) => {
      write(repo, 'enc/Latin1.cs', Buffer.concat([Buffer.from('class Latin1 { string s = "caf'), Buffer.from([0xe9]), Buffer.from('"; }\n')]));
      return { 'enc/Latin1.cs': ok };
    },
  },
  {
    kind: 'UTF-16 LE and BE with a byte order mark: decoded (decision 025); an odd byte count is skipped',
    make: (repo) => {
      const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('export const a = 1;\n', 'utf16le')]);
      const be = Buffer.from(le);
      be.swap16();
      write(repo, 'enc/utf16le.ts', le);
      write(repo, 'enc/utf16be.ts', be);
      write(repo, 'enc/utf16odd.ts', Buffer.concat([le, Buffer.from([0x41])]));
      const reason = 'UTF-16 text that does not decode (odd length or unpaired surrogates)';
      return { 'enc/utf16le.ts': ok, 'enc/utf16be.ts': ok, 'enc/utf16odd.ts': { outcome: 'skipped', reason } };
    },
  },
  {
    kind: 'UTF-8 with a byte order mark',
    make: (repo) => {
      write(repo, 'enc/bom.ts', `\uFEFFexport const bom = 1;\n`);
      return { 'enc/bom.ts': ok };
    },
  },
  {
    kind: 'CRLF line endings',
    make: (repo) => {
      write(repo, 'eol/crlf.ts', 'export function crlf(): number {\r\n  return 1;\r\n}\r\n');
      return { 'eol/crlf.ts': ok };
    },
  },
  {
    kind: 'lone CR line endings',
    make: (repo) => {
      write(repo, 'eol/cr.ts', 'export function cr(): number {\r  return 1;\r}\r');
      return { 'eol/cr.ts': ok };
    },
  },
  {
    kind: '10,000-deep parenthesised expression',
    make: (repo) => {
      write(repo, 'deep/nest.ts', `export const deep =\n${'(\n'.repeat(10_000)}1\n${')\n'.repeat(10_000)};\n`);
      return { 'deep/nest.ts': ok };
    },
  },
  {
    kind: '3,000-deep JSX',
    make: (repo) => {
      write(repo, 'deep/jsx.tsx', `export const Deep = () => (\n${'<div>\n'.repeat(3000)}x\n${'</div>\n'.repeat(3000)});\n`);
      return { 'deep/jsx.tsx': ok };
    },
  },
  {
    kind: '2 MB single line (over indexing.max_file_bytes)',
    make: (repo, env) => {
      const size = 2 * 1024 * 1024;
      write(repo, 'big/oneline-2mb.ts', `// ${'x'.repeat(size - 4)}\n`);
      return { 'big/oneline-2mb.ts': { outcome: 'skipped', reason: `file is ${size} bytes, over indexing.max_file_bytes (${env.maxFileBytes})` } };
    },
  },
  {
    kind: '100 KB single line (under the cap)',
    make: (repo) => {
      write(repo, 'big/long-line.ts', `export const s = "${'y'.repeat(100_000)}";\n`);
      return { 'big/long-line.ts': { outcome: 'skipped', reason: MINIFIED } };
    },
  },
  {
    kind: 'exactly indexing.max_file_bytes, and one byte over',
    make: (repo, env) => {
      // Lines of 16 bytes: under 300 characters a line, so not taken for minified code.
      const line = '// ok ok ok ok\n';
      const body = line.repeat(Math.floor(env.maxFileBytes / line.length));
      const atCap = body + '/'.repeat(env.maxFileBytes - body.length - 1) + '\n';
      write(repo, 'big/at-cap.ts', atCap);
      write(repo, 'big/over-cap.ts', `${atCap}\n`);
      return {
        'big/at-cap.ts': ok,
        'big/over-cap.ts': { outcome: 'skipped', reason: `file is ${env.maxFileBytes + 1} bytes, over indexing.max_file_bytes (${env.maxFileBytes})` },
      };
    },
  },
  {
    kind: 'empty files (TS and C#)',
    make: (repo) => {
      write(repo, 'empty/empty.ts', '');
      write(repo, 'empty/Empty.cs', '');
      return { 'empty/empty.ts': ok, 'empty/Empty.cs': ok };
    },
  },
  {
    kind: 'a name with spaces',
    make: (repo) => {
      write(repo, 'names/with space.ts', 'export const spaced = 1;\n');
      return { 'names/with space.ts': ok };
    },
  },
  {
    kind: 'a unicode name',
    make: (repo) => {
      write(repo, 'names/ünïcødé-名前.ts', 'export const named = 1;\n');
      return { 'names/ünïcødé-名前.ts': ok };
    },
  },
  {
    kind: 'a name with a newline',
    make: (repo) => {
      write(repo, 'names/new\nline.ts', 'export const newline = 1;\n');
      return { 'names/new\nline.ts': ok };
    },
  },
  {
    kind: 'a name with a leading dash',
    make: (repo) => {
      write(repo, 'names/-dash.ts', 'export const dash = 1;\n');
      return { 'names/-dash.ts': ok };
    },
  },
  {
    kind: 'names that are only an extension, hold "..", or name Object.prototype members',
    make: (repo) => {
      write(repo, 'names/.ts', 'export const dot = 1;\n');
      write(repo, 'names/a..b.ts', 'export const dots = 1;\n');
      write(repo, 'names/__proto__.ts', 'export const proto = 1;\n');
      write(repo, 'names/constructor.ts', 'export const ctor = 1;\n');
      // At the root, `..lead.ts` is a file of the repository, not a way out of it.
      write(repo, '..lead.ts', 'export const lead = 1;\n');
      // `.ts` alone has no extension (a dot file): not a source file.
      return { 'names/.ts': { outcome: 'absent' }, 'names/a..b.ts': ok, 'names/__proto__.ts': ok, 'names/constructor.ts': ok, '..lead.ts': ok };
    },
  },
  {
    kind: 'a symbolic link loop (file and directory)',
    make: (repo) => {
      link(repo, 'links/loop.ts', 'loop.ts');
      link(repo, 'links/self', '.');
      return {
        'links/loop.ts': { outcome: 'skipped', reason: 'symbolic link loop' },
        'links/self': { outcome: 'skipped', reason: 'symbolic link (not followed; target links is indexed at its own path)' },
      };
    },
  },
  {
    kind: 'symbolic links out of the repository (a directory, a file, a device)',
    make: (repo) => {
      link(repo, 'links/etc', '/etc');
      link(repo, 'links/passwd.ts', '/etc/passwd');
      link(repo, 'links/zero.ts', '/dev/zero');
      link(repo, 'links/zero.cs', '/dev/zero');
      return {
        'links/etc': { outcome: 'skipped', reason: OUTSIDE },
        'links/passwd.ts': { outcome: 'skipped', reason: OUTSIDE },
        'links/zero.ts': { outcome: 'skipped', reason: OUTSIDE },
        'links/zero.cs': { outcome: 'skipped', reason: OUTSIDE },
      };
    },
  },
  {
    kind: 'a dangling symbolic link',
    make: (repo) => {
      link(repo, 'links/dangling.ts', 'nowhere.ts');
      return { 'links/dangling.ts': { outcome: 'skipped', reason: 'broken symbolic link (ENOENT)' } };
    },
  },
  {
    kind: 'FIFOs named like sources and project files',
    make: (repo) => {
      fifo(repo, 'special/fifo.ts');
      fifo(repo, 'special/Fifo.csproj');
      fifo(repo, 'special/package.json');
      fifo(repo, 'special/.gitignore');
      return {
        'special/fifo.ts': { outcome: 'skipped', reason: 'not a regular file (FIFO)' },
        'special/Fifo.csproj': { outcome: 'skipped', reason: 'not a regular file (FIFO)' },
        'special/package.json': { outcome: 'skipped', reason: 'not read: not a regular file (FIFO)' },
        'special/.gitignore': { outcome: 'skipped', reason: 'not read: not a regular file (FIFO)' },
      };
    },
  },
  {
    kind: 'an unreadable file (chmod 000)',
    make: (repo, env) => {
      write(repo, 'perm/unreadable.ts', 'export const hidden = 1;\n');
      chmodSync(join(repo, 'perm/unreadable.ts'), 0o000);
      // Root reads through permission bits: the file is then simply indexed.
      return { 'perm/unreadable.ts': env.root ? ok : { outcome: 'error', reason: /^unreadable: / } };
    },
  },
  {
    kind: 'an unreadable directory (chmod 000)',
    make: (repo, env) => {
      write(repo, 'perm/locked/inside.ts', 'export const inside = 1;\n');
      chmodSync(join(repo, 'perm/locked'), 0o000);
      const asRoot: Record<string, FileOutcome> = { 'perm/locked/inside.ts': ok };
      const asUser: Record<string, FileOutcome> = { 'perm/locked': { outcome: 'skipped', reason: /^cannot read directory: EACCES/ }, 'perm/locked/inside.ts': { outcome: 'absent' } };
      return env.root ? asRoot : asUser;
    },
  },
  {
    kind: '1,000 nested #if (C#)',
    make: (repo) => {
      const n = 1000;
      const opens = Array.from({ length: n }, (_, i) => `#if !NEVER_${i}`).join('\n');
      write(repo, 'cs/Ifs.cs', `${opens}\nnamespace Deep { public class Ifs { } }\n${'#endif\n'.repeat(n)}`);
      return { 'cs/Ifs.cs': ok };
    },
  },
  {
    kind: 'an unterminated string (TS, C#)',
    make: (repo) => {
      write(repo, 'broken/string.ts', 'export const s = "never closed\nexport const t = 2;\n');
      write(repo, 'broken/Str.cs', 'class Str { string s = "never closed\n}\n');
      return {
        'broken/string.ts': { outcome: 'indexed', status: 'partial', reason: ONE_TS_SYNTAX_ERROR },
        'broken/Str.cs': { outcome: 'indexed', status: 'partial', reason: CS_SYNTAX_ERROR },
      };
    },
  },
  {
    kind: 'an unterminated comment (TS, C#)',
    make: (repo) => {
      write(repo, 'broken/comment.ts', 'export const c = 1;\n/* never closed\n');
      write(repo, 'broken/Comment.cs', 'class Comment { }\n/* never closed\n');
      return {
        'broken/comment.ts': { outcome: 'indexed', status: 'partial', reason: ONE_TS_SYNTAX_ERROR },
        'broken/Comment.cs': { outcome: 'indexed', status: 'partial', reason: CS_SYNTAX_ERROR },
      };
    },
  },
  {
    kind: 'a 15,000-character identifier',
    make: (repo) => {
      // 60 short lines keep the average line under 300 characters: not taken for minified code.
      write(repo, 'ts/huge-identifier.ts', `export function ${'h'.repeat(15_000)}(): void {}\n${'// pad\n'.repeat(60)}`);
      return { 'ts/huge-identifier.ts': ok };
    },
  },
  {
    kind: 'a NUL byte after the first 8 KiB',
    make: (repo) => {
      write(repo, 'ts/late-nul.ts', `${'// padding line\n'.repeat(600)}export const late = "\0";\n`);
      // Past the binary check's first 8 KiB the NUL reaches the parser, which reports it as syntax errors.
      return { 'ts/late-nul.ts': { outcome: 'indexed', status: 'partial', reason: /^\d+ syntax errors? \(ERROR\/MISSING nodes\); symbols may be incomplete$/ } };
    },
  },
  {
    kind: 'a shebang script and JSX in .js',
    make: (repo) => {
      write(repo, 'ts/cli.js', '#!/usr/bin/env node\nconsole.log(1);\n');
      write(repo, 'ts/view.js', 'export const View = () => <div>hi</div>;\n');
      return { 'ts/cli.js': ok, 'ts/view.js': ok };
    },
  },
  {
    kind: '200,000 lines',
    make: (repo) => {
      write(repo, 'ts/many-lines.ts', ';\n'.repeat(200_000));
      return { 'ts/many-lines.ts': ok };
    },
  },
  {
    kind: 'a directory 100 levels deep',
    make: (repo) => {
      const path = `${Array.from({ length: 100 }, () => 'd').join('/')}/deepest.ts`;
      write(repo, path, 'export const deepest = 1;\n');
      return { [path]: ok };
    },
  },
  {
    kind: 'secret files (.env, a source-named .env.ts, a key)',
    make: (repo) => {
      write(repo, 'secret/.env', 'TOKEN=abc\n');
      write(repo, 'secret/.env.ts', 'export const TOKEN = "abc";\n');
      write(repo, 'secret/server.key', 'KEY\n');
      return {
        'secret/.env': { outcome: 'skipped', reason: SECRET },
        'secret/.env.ts': { outcome: 'skipped', reason: SECRET },
        'secret/server.key': { outcome: 'skipped', reason: SECRET },
      };
    },
  },
  {
    kind: 'invalid package.json and tsconfig.json',
    make: (repo) => {
      write(repo, 'cfg/package.json', '{ "name": ');
      write(repo, 'cfg/tsconfig.json', '{ "compilerOptions": { ');
      write(repo, 'cfg/i.ts', 'export const inCfg = 1;\n');
      // Configs are not source files; the source beside them is still indexed.
      // Both are configuration files now (decision 039): indexed with the reason of their fault, no key found.
      return {
        'cfg/package.json': { outcome: 'error', reason: 'malformed JSON at line 1: expected a value, found the end of the file' },
        'cfg/tsconfig.json': { outcome: 'error', reason: 'malformed JSON at line 1: unclosed object' },
        'cfg/i.ts': ok,
      };
    },
  },
  {
    kind: 'a tsconfig extends outside the repository and a compiler plugin',
    make: (repo) => {
      write(repo, 'cfg2/tsconfig.json', JSON.stringify({ extends: '../../../../../../etc/passwd', compilerOptions: { plugins: [{ name: 'evil' }] } }));
      write(repo, 'cfg2/e.ts', 'export const e = 1;\n');
      // The tsconfig.json is a configuration file too (decision 039): its keys are indexed, nothing is followed.
      return { 'cfg2/e.ts': ok, 'cfg2/tsconfig.json': ok };
    },
  },
  {
    kind: 'malformed .csproj XML',
    make: (repo) => {
      write(repo, 'csbad/Bad.csproj', '<Project Sdk="Microsoft.NET.Sdk"><PropertyGroup>');
      write(repo, 'csbad/B.cs', 'namespace CsBad { public class B { } }\n');
      return { 'csbad/B.cs': ok };
    },
  },
  {
    kind: 'bidirectional and zero-width characters',
    make: (repo) => {
      write(repo, 'ts/rtl.ts', 'export const admin = "\u202Eevil\u202C";\nexport const zw\u200Dj = 1;\n');
      return { 'ts/rtl.ts': ok };
    },
  },
  {
    kind: 'form feeds and vertical tabs',
    make: (repo) => {
      write(repo, 'ts/formfeed.ts', 'export const a = 1;\f\vexport const b = 2;\n');
      return { 'ts/formfeed.ts': ok };
    },
  },
  {
    kind: 'a 10,000-line .gitignore with negations',
    make: (repo) => {
      const lines = Array.from({ length: 10_000 }, (_, i) => `generated-${i}/**`);
      write(repo, 'gi/.gitignore', `${lines.join('\n')}\nignored/\n!keep.ts\n`);
      write(repo, 'gi/ignored/x.ts', 'export const x = 1;\n');
      write(repo, 'gi/keep.ts', 'export const keep = 1;\n');
      return { 'gi/ignored/x.ts': { outcome: 'absent' }, 'gi/keep.ts': ok };
    },
  },
  {
    kind: `${TINY_FILES} tiny files`,
    make: (repo) => {
      const out: Record<string, FileOutcome> = {};
      for (let i = 0; i < TINY_FILES; i++) {
        const path = `many/d${Math.floor(i / 500)}/f${i}.ts`;
        write(repo, path, `export const v${i} = ${i};\n`);
        out[path] = ok;
      }
      return out;
    },
  },
];

/** What a CLI invocation must end with: exit 0, or an error of a given code. */
export type ArgOutcome = { readonly exit: 0 } | { readonly exit: 1 | 2; readonly code: string };

export interface ArgKind {
  readonly kind: string;
  /** CLI arguments; `--repo REPO --json` are appended. */
  readonly args: readonly string[];
  readonly expect: ArgOutcome;
}

const usage = (code = 'usage'): ArgOutcome => ({ exit: 2, code });

export const ARG_KINDS: readonly ArgKind[] = [
  { kind: 'empty query', args: ['search', ''], expect: usage() },
  { kind: 'whitespace-only query', args: ['search', '   \t '], expect: usage() },
  { kind: '100 KB query', args: ['search', 'parse '.repeat(17_000)], expect: { exit: 0 } },
  { kind: 'punctuation-only query', args: ['search', '!@#$%^&*()[]{};:,.<>?/\\|`~'], expect: { exit: 0 } },
  { kind: 'FTS operators', args: ['search', 'NEAR(a b) OR c* AND NOT d ^e "f'], expect: { exit: 0 } },
  { kind: 'FTS column filter', args: ['search', 'name:foo {qualified_name}:bar'], expect: { exit: 0 } },
  { kind: 'SQL-looking query', args: ['search', "'; DROP TABLE nodes; --"], expect: { exit: 0 } },
  { kind: 'SQL quote injection', args: ['search', 'a" OR 1=1 --'], expect: { exit: 0 } },
  { kind: 'emoji query', args: ['search', '🔥💥 fire'], expect: { exit: 0 } },
  { kind: 'CJK query', args: ['search', '名前 検索'], expect: { exit: 0 } },
  { kind: 'RTL query', args: ['search', 'مرحبا \u202Eevil'], expect: { exit: 0 } },
  { kind: 'regex metacharacters', args: ['search', '.*+?^$(|)'], expect: { exit: 0 } },
  { kind: 'limit 0', args: ['search', 'v1', '--limit', '0'], expect: usage() },
  { kind: 'limit -1', args: ['search', 'v1', '--limit=-1'], expect: usage() },
  { kind: 'limit 1,000,001', args: ['search', 'v1', '--limit', '1000001'], expect: usage() },
  { kind: 'limit not a number', args: ['search', 'v1', '--limit', '1e3'], expect: usage() },
  { kind: 'budget negative', args: ['search', 'v1', '--budget=-5'], expect: usage() },
  { kind: 'budget 0', args: ['search', 'v1', '--budget', '0'], expect: { exit: 0 } },
  // Past the largest whole number JavaScript holds exactly: refused, never silently rounded.
  { kind: 'budget huge', args: ['search', 'v1', '--budget', '99999999999999999999'], expect: usage() },
  { kind: 'min-score out of range', args: ['search', 'v1', '--min-score', '2'], expect: usage() },
  { kind: 'unknown language', args: ['search', 'v1', '--lang', 'cobol'], expect: usage() },
  { kind: 'unknown kind', args: ['search', 'v1', '--kind', 'monad'], expect: usage() },
  // An unclosed character class is a glob error with its column (issue 20), not a silent non-match.
  { kind: 'odd path glob', args: ['search', 'v1', '--path', '[[[**/../'], expect: usage('invalid_query') },
  { kind: 'depth 0', args: ['callers', 'v1', '--depth', '0'], expect: usage() },
  { kind: 'depth over the cap', args: ['callers', 'v1', '--depth', '1000000'], expect: usage() },
  { kind: 'max-nodes 0', args: ['impact', 'v1', '--max-nodes', '0'], expect: usage() },
  { kind: 'unknown format', args: ['callers', 'v1', '--format', 'xml'], expect: usage() },
  { kind: 'outline ../../etc/passwd', args: ['outline', '../../etc/passwd'], expect: usage('invalid_path') },
  { kind: 'outline /etc/passwd', args: ['outline', '/etc/passwd'], expect: usage('invalid_path') },
  { kind: 'deps ../../etc/passwd', args: ['deps', '../../etc/passwd'], expect: usage('invalid_path') },
  { kind: 'source ../../etc/passwd (a symbol name that names nothing)', args: ['source', '../../etc/passwd'], expect: { exit: 1, code: 'not_found' } },
  { kind: 'outline a leading-dash file after --', args: ['outline', '--', 'names/-dash.ts'], expect: { exit: 0 } },
  { kind: 'outline a file with a newline in its name', args: ['outline', 'names/new\nline.ts'], expect: { exit: 0 } },
  { kind: 'outline a root file whose name starts with ".."', args: ['outline', '..lead.ts'], expect: { exit: 0 } },
  { kind: 'a 10,000-character symbol name', args: ['callers', 'x'.repeat(10_000)], expect: { exit: 1, code: 'not_found' } },
  { kind: 'an empty symbol name', args: ['symbol', ''], expect: usage() },
  { kind: 'unknown option', args: ['search', 'v1', '--frobnicate'], expect: usage() },
  { kind: 'unknown command', args: ['frobnicate'], expect: usage() },
  // `ca graph` (decision 035): formats and filters it cannot take, and a filter selecting nothing
  // (a valid empty graph with a notice, exit 0; JSON so that stdout is one JSON document).
  { kind: 'graph: unknown format', args: ['graph', '--format', 'svg'], expect: usage() },
  { kind: 'graph: filter without a value', args: ['graph', '--filter', 'lang:', '--format', 'json'], expect: usage('invalid_query') },
  { kind: 'graph: filter with unbalanced parentheses', args: ['graph', '--filter', '(((', '--format', 'json'], expect: usage('invalid_query') },
  { kind: 'graph: filter with an unknown kind', args: ['graph', '--filter', 'kind:monad', '--format', 'json'], expect: usage('invalid_query') },
  { kind: 'graph: a positional argument', args: ['graph', 'everything', '--format', 'json'], expect: usage() },
  { kind: 'graph: max-nodes -1', args: ['graph', '--max-nodes=-1', '--format', 'json'], expect: usage() },
  { kind: 'graph: a filter selecting nothing (empty result)', args: ['graph', '--filter', 'path:nowhere/**', '--format', 'json'], expect: { exit: 0 } },
];
