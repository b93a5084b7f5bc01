import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AGENT_INSTRUCTIONS, install, installPlan, mergedConfig, SessionPool, TOOL_NAMES } from '../src/index.js';
import { connect, copyFixture, NO_EMBEDDINGS } from './helpers.js';

describe('the repository pool of the HTTP server', () => {
  const made: string[] = [];
  afterEach(() => {
    for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  /** Three repositories (directories; never indexed here: sessions open lazily and are not used for calls). */
  const repos = () => {
    const base = mkdtempSync(join(tmpdir(), 'ca-pool-'));
    made.push(base);
    return ['a', 'b', 'c'].map((n) => {
      const d = join(base, n);
      mkdirSync(d);
      return d;
    });
  };
  const options = { refresh: false, log: () => {}, env: {}, configOverrides: NO_EMBEDDINGS };

  it('opens a session on first use, keeps at most maxOpen, closing the least recently used idle one', async () => {
    const [a, b, c] = repos();
    const pool = new SessionPool({ repos: [a!, b!, c!], session: options, maxOpen: 2 });
    try {
      expect(pool.openRepos()).toEqual([]);
      await pool.use(a, async () => undefined);
      await new Promise((r) => setTimeout(r, 5));
      await pool.use(b, async () => undefined);
      await new Promise((r) => setTimeout(r, 5));
      expect(pool.openRepos()).toEqual([b, a]);
      // A third repository: a (least recently used, idle) closes.
      await pool.use(c, async () => undefined);
      expect(pool.openRepos()).toEqual([c, b]);
      // A session in use is never closed under its call, even past the cap.
      await pool.use(b, async () => {
        await pool.use(a, async () => {
          await pool.use(c, async () => expect(pool.openRepos().length).toBe(3));
        });
      });
      expect(pool.openRepos().length).toBe(2);
    } finally {
      await pool.close();
    }
  });

  it('closes idle sessions while the process is over its memory budget', async () => {
    const [a, b] = repos();
    let rss = 100;
    const pool = new SessionPool({ repos: [a!, b!], session: options, memoryBudgetBytes: 150, rss: () => rss });
    try {
      await pool.use(a, async () => undefined);
      await pool.use(b, async () => undefined);
      expect(pool.openRepos().length).toBe(2);
      rss = 200;
      // Over the budget: after the next call every idle session closes, oldest first, while the reading stays over it.
      await pool.use(b, async () => undefined);
      expect(pool.openRepos()).toEqual([]);
    } finally {
      await pool.close();
    }
  });

  it('closes a session unused for idleMs', async () => {
    vi.useFakeTimers({ now: 0 });
    const [a] = repos();
    const pool = new SessionPool({ repos: [a!], session: options, idleMs: 10_000 });
    try {
      await pool.use(undefined, async () => undefined);
      expect(pool.openRepos()).toEqual([a]);
      vi.advanceTimersByTime(12_500);
      expect(pool.openRepos()).toEqual([]);
    } finally {
      vi.useRealTimers();
      await pool.close();
    }
  });

  it('refuses a repository outside the allow-list (a sibling sharing the prefix too)', async () => {
    const [a, b] = repos();
    const pool = new SessionPool({ repos: [a!], session: options });
    try {
      await expect(pool.use(b, async () => undefined)).rejects.toThrow(`repository ${b} is not served by this server (allowed: ${a})`);
      await expect(pool.use(`${a}-evil`, async () => undefined)).rejects.toThrow(`repository ${a}-evil is not served by this server`);
      await expect(pool.use(`${a}/../b`, async () => undefined)).rejects.toThrow('is not served by this server');
      // The allowed one, named through a path that resolves to it, is served.
      expect(await pool.use(`${a}/.`, async (s) => s.options.repo)).toBe(a);
    } finally {
      await pool.close();
    }
  });
});

describe('ca mcp install and instructions', () => {
  const node = '/usr/bin/node';
  const entry = '/opt/ca/apps/mcp/dist/main.js';

  it('plans each client\'s entry in its own file and shape', () => {
    const env = { HOME: '/home/u', XDG_CONFIG_HOME: '/home/u/.config' };
    expect(installPlan('claude-code', '/work/r', { env, node, entry })).toEqual({
      file: '/work/r/.mcp.json',
      key: 'mcpServers',
      entry: { type: 'stdio', command: node, args: [entry, '/work/r'] },
    });
    expect(installPlan('vscode', '/work/r', { env, node, entry })).toEqual({ file: '/work/r/.vscode/mcp.json', key: 'servers', entry: { type: 'stdio', command: node, args: [entry, '/work/r'] } });
    expect(installPlan('cursor', '/work/r', { env, node, entry }).file).toBe('/work/r/.cursor/mcp.json');
    expect(installPlan('claude-desktop', '/work/r', { env, node, entry, platform: 'linux' }).file).toBe('/home/u/.config/Claude/claude_desktop_config.json');
    expect(installPlan('claude-desktop', '/work/r', { env: { APPDATA: 'C:/Users/u/AppData/Roaming' }, node, entry, platform: 'win32' }).file).toBe(join('C:/Users/u/AppData/Roaming', 'Claude/claude_desktop_config.json'));
    // The model folder goes along when it is set.
    expect(installPlan('cursor', '/work/r', { env: { CA_EMBEDDING_MODEL_DIR: '/m' }, node, entry }).entry).toEqual({ command: node, args: [entry, '/work/r'], env: { CA_EMBEDDING_MODEL_DIR: '/m' } });
  });

  it('merging keeps the user\'s other servers and keys, replaces only ours, and refuses a file it cannot read', () => {
    const plan = installPlan('cursor', '/work/r', { env: {}, node, entry });
    const existing = JSON.stringify({ theme: 'dark', mcpServers: { other: { command: 'x' }, 'code-agent': { command: 'old' } } });
    expect(mergedConfig(existing, plan)).toEqual({ theme: 'dark', mcpServers: { other: { command: 'x' }, 'code-agent': plan.entry } });
    expect(mergedConfig(null, plan)).toEqual({ mcpServers: { 'code-agent': plan.entry } });
    expect(() => mergedConfig('{ not json', plan)).toThrow(`${plan.file} is not valid JSON`);
    expect(() => mergedConfig('[1]', plan)).toThrow(`${plan.file} does not hold a JSON object; add the entry by hand`);
    expect(() => mergedConfig('{"mcpServers": []}', plan)).toThrow(`"mcpServers" in ${plan.file} is not an object; add the entry by hand`);
  });

  it('prints by default; --write writes, keeping a backup of the previous file', () => {
    const repo = mkdtempSync(join(tmpdir(), 'ca-install-'));
    try {
      const printed = install('claude-code', repo, false, { env: {}, node, entry });
      expect(printed.split('\n')[0]).toBe(`# add to ${repo}/.mcp.json (ca mcp install --client claude-code --write does it, keeping your other entries)`);
      expect(printed).toContain(`claude mcp add code-agent -- "${node}" "${entry}" "${repo}"`);
      expect(existsSync(join(repo, '.mcp.json'))).toBe(false);
      writeFileSync(join(repo, '.mcp.json'), JSON.stringify({ mcpServers: { mine: { command: 'keep-me' } } }));
      expect(install('claude-code', repo, true, { env: {}, node, entry })).toBe(`wrote the code-agent entry to ${repo}/.mcp.json (previous file kept as ${repo}/.mcp.json.bak)\n`);
      expect(JSON.parse(readFileSync(join(repo, '.mcp.json'), 'utf8'))).toEqual({
        mcpServers: { mine: { command: 'keep-me' }, 'code-agent': { type: 'stdio', command: node, args: [entry, repo] } },
      });
      expect(JSON.parse(readFileSync(join(repo, '.mcp.json.bak'), 'utf8'))).toEqual({ mcpServers: { mine: { command: 'keep-me' } } });
    } finally {
      rmSync(repo, { recursive: true, force: true });
    }
  });

  it('the AGENTS.md snippet names tools that exist', () => {
    const named = [...AGENT_INSTRUCTIONS.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]!).filter((n) => n.includes('_'));
    expect(named.length).toBeGreaterThan(5);
    expect(named.filter((n) => !(TOOL_NAMES as readonly string[]).includes(n))).toEqual([]);
  });
});

describe('libraries never write to stdout', () => {
  it('no tool call writes to process.stdout (stdout carries protocol frames only)', async () => {
    const repo = copyFixture('ts-app');
    const mcp = await connect({ repo });
    const write = vi.spyOn(process.stdout, 'write');
    try {
      for (const [name, args] of [
        ['index_files', {}],
        ['search_code', { query: 'login' }],
        ['lookup_symbol', { symbol: 'login' }],
        ['find_similar', { symbol: 'AuthService.login' }],
        ['get_symbol', { symbol: 'AuthService.login' }],
        ['get_source_spans', { symbol: 'AuthService.login' }],
        ['get_file_outline', { path: 'src/auth/authService.ts' }],
        ['get_callers', { symbol: 'AuthService.issueToken' }],
        ['get_callees', { symbol: 'AuthService.login' }],
        ['get_references', { symbol: 'TokenStore' }],
        ['get_implementations', { symbol: 'TokenStore' }],
        ['get_dependencies', { symbol: 'src/App.jsx' }],
        ['get_dependents', { symbol: 'src/auth/tokenStore.ts' }],
        ['impact_analysis', { symbol: 'TokenStore.save', depth: 3 }],
        ['discover_directories', { query: 'billing' }],
        ['map_symbols', { path: 'src/**' }],
        ['get_directory_tree', {}],
        ['list_directory', {}],
        ['read_file', { path: 'src/App.jsx' }],
        ['get_status', {}],
        ['list_labels', {}],
      ] as const) {
        const r = await mcp.call(name, args);
        expect(r.isError, name).toBe(false);
      }
      expect(write).not.toHaveBeenCalled();
    } finally {
      write.mockRestore();
      await mcp.close();
      rmSync(join(repo, '..'), { recursive: true, force: true });
    }
  }, 120_000);
});
