import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createServer, type CodeAgentServer, type ServerOptions } from '../src/index.js';

export const ROOT = resolve(__dirname, '../../..');
export const MCP_BIN = join(ROOT, 'apps/mcp/dist/main.js');
export const CLI_BIN = join(ROOT, 'apps/cli/dist/main.js');

/** The environment without any CA_ variable, so the machine's settings do not leak into the answers. */
export const CLEAN_ENV: Record<string, string> = Object.fromEntries(
  Object.entries(process.env).filter((e): e is [string, string] => !e[0].startsWith('CA_') && e[1] !== undefined),
);

/** A private copy of `fixtures/<name>`, so tests may edit it and write `.codeagent/` into it. */
export function copyFixture(name: string): string {
  const target = join(mkdtempSync(join(tmpdir(), 'ca-mcp-')), 'repo');
  cpSync(join(ROOT, 'fixtures', name), target, { recursive: true });
  return target;
}

/** Without embeddings (the vector channel is off, a state the server reports): the answers do not depend on a model. */
export const NO_EMBEDDINGS = { embedding: { enabled: false } };

export interface Answer {
  readonly isError: boolean;
  /** `structuredContent` when the answer has it (search_code: its JSON), else the first text item parsed as JSON (errors), else undefined. */
  readonly json: any;
  readonly texts: string[];
  readonly structured: unknown;
}

export interface Connected {
  readonly client: Client;
  readonly app: CodeAgentServer;
  call(name: string, args?: Record<string, unknown>): Promise<Answer>;
  close(): Promise<void>;
}

export async function callTool(client: Client, name: string, args: Record<string, unknown> = {}): Promise<Answer> {
  const r = await client.callTool({ name, arguments: args });
  const texts = (r.content as { type: string; text: string }[]).map((c) => c.text);
  let json: unknown;
  try {
    json = JSON.parse(texts[0] ?? '');
  } catch {
    json = undefined;
  }
  return { isError: r.isError === true, json: r.structuredContent ?? json, texts, structured: r.structuredContent };
}

/** The real server over a linked in-memory transport, with an SDK client connected to it. */
export async function connect(options: ServerOptions): Promise<Connected> {
  const app = createServer({ log: () => {}, env: {}, configOverrides: NO_EMBEDDINGS, ...options });
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  await app.server.connect(serverSide);
  const client = new Client({ name: 'ca-mcp-test', version: '0.0.0' });
  await client.connect(clientSide);
  return {
    client,
    app,
    call: (name, args) => callTool(client, name, args),
    close: async () => {
      await client.close();
      await app.close();
    },
  };
}

/** [from, type, confidence, path, line] of each edge of a navigation answer, the source named. */
export function edgeRows(r: { edges: { from: string; type: string; confidence: string; path: string; line: number }[]; nodes: { id: string; qualifiedName: string }[] }): unknown[][] {
  return r.edges.map((e) => [r.nodes.find((n) => n.id === e.from)?.qualifiedName ?? e.from, e.type, e.confidence, e.path, e.line]);
}

/** `ca … --json` on the same repository, parsed (embeddings off like the server under test). */
export function caJson(args: string[]): any {
  const r = spawnSync(process.execPath, [CLI_BIN, ...args, '--json'], { encoding: 'utf8', env: { ...CLEAN_ENV, CA_EMBEDDING_ENABLED: 'false' } });
  if (r.status !== 0) throw new Error(`ca ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

/**
 * Why the C# MCP tests cannot run here (no .NET SDK, or roslyn-host not built), or null. They are
 * skipped with the reason printed; with CA_REQUIRE_DOTNET=1 (set by .ci/run) that is an error.
 */
export function dotnetMissing(): string | null {
  const dotnet = spawnSync('dotnet', ['--version'], { encoding: 'utf8' }).status === 0;
  const release = join(ROOT, 'roslyn-host', 'bin', 'Release');
  const built = existsSync(release) && readdirSync(release).some((tfm) => existsSync(join(release, tfm, 'CodeAgent.RoslynHost.dll')));
  const reason = !dotnet ? 'dotnet (the .NET SDK) is not installed' : !built ? `roslyn-host is not built (no ${release}/<tfm>/CodeAgent.RoslynHost.dll)` : null;
  if (reason === null) return null;
  if (process.env['CA_REQUIRE_DOTNET'] === '1') throw new Error(`CA_REQUIRE_DOTNET=1 but the C# MCP tests cannot run: ${reason}`);
  console.warn(`SKIPPED: the C# MCP tests need the .NET SDK and a built roslyn-host: ${reason}`);
  return reason;
}

/** What `generateHubRepo` wrote: the names a test asks about. */
export interface HubRepo {
  readonly root: string;
  /** The most-connected class and one of its most-called methods. */
  readonly hub: string;
  readonly hubMethod: string;
  /** The largest file (by lines and bytes) and the directory with the most entries. */
  readonly largestFile: string;
  readonly largestDirectory: string;
  readonly files: number;
}

/**
 * A generated TypeScript repository built to make answers large: a hub class with ten long
 * documented methods used by `modules` feature files (each calls two hub methods, constructs
 * the hub, extends nothing but calls the previous module's function, so walks go deep), one
 * file of `hugeLines` lines, and a flat directory of `flatFiles` small files.
 */
export function generateHubRepo(options: { modules?: number; hugeLines?: number; flatFiles?: number } = {}): HubRepo {
  const modules = options.modules ?? 200;
  const hugeLines = options.hugeLines ?? 6000;
  const flatFiles = options.flatFiles ?? 120;
  const root = join(mkdtempSync(join(tmpdir(), 'ca-hub-')), 'repo');
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  write('package.json', JSON.stringify({ name: 'hub-repo', private: true, version: '1.0.0', type: 'module' }));
  write('tsconfig.json', JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'ESNext', moduleResolution: 'Bundler', strict: true }, include: ['src'] }));
  const methods = Array.from({ length: 10 }, (_, k) =>
    [
      `  /**`,
      `   * Method ${k} of the hub: ${'a long explanation of what the hub does for every feature that needs it, '.repeat(4)}`,
      `   */`,
      `  m${k}(value: number, label: string = 'hub-${k}'): number {`,
      ...Array.from({ length: 12 }, (_, j) => `    value = value * ${j + 2} + label.length - ${k}; // step ${j} of method ${k}`),
      `    return value;`,
      `  }`,
    ].join('\n'),
  );
  write('src/hub/hub.ts', `/** The class every feature uses. */\nexport class Hub {\n${methods.join('\n\n')}\n}\n`);
  for (let i = 0; i < modules; i++) {
    const prev = i > 0 ? `import { f${i - 1}a } from '../feat${i - 1}/mod${i - 1}';\n` : '';
    write(
      `src/feat${i}/mod${i}.ts`,
      `import { Hub } from '../hub/hub';\n${prev}\n` +
        `/** Feature ${i}: adds what two hub methods say. */\nexport function f${i}a(h: Hub): number {\n  return h.m${i % 10}(1) + h.m${(i + 1) % 10}(2)${i > 0 ? ` + f${i - 1}a(h)` : ''};\n}\n\n` +
        `export function f${i}b(): Hub {\n  const h = new Hub();\n  h.m0(3);\n  return h;\n}\n\n` +
        `export class Feature${i} {\n  run(h: Hub): number {\n    return f${i}a(h) + h.m${i % 10}(4) + h.m0(5);\n  }\n}\n`,
    );
  }
  write('src/big/huge.ts', Array.from({ length: hugeLines / 3 }, (_, i) => `export function huge${i}(x: number): number {\n  return x + ${i}; // ${'padding '.repeat(6)}\n}`).join('\n') + '\n');
  for (let i = 0; i < flatFiles; i++) write(`src/flat/item${String(i).padStart(3, '0')}.ts`, `export const item${i} = ${i};\n`);
  return { root, hub: 'Hub', hubMethod: 'Hub.m0', largestFile: 'src/big/huge.ts', largestDirectory: 'src/flat', files: modules + flatFiles + 2 };
}
