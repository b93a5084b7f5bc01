/**
 * Configuration reads linked to appsettings keys (decision 048) across the full-stack fixture
 * (fixtures/fullstack/backend: appsettings.json, appsettings.Development.json, Config/ShopConfig.cs),
 * end to end through `Engine.index()`: every `reads_config` edge with its confidence (derived by
 * hand in the comments), the unresolved reads (a computed key, a key no file has), navigation
 * from a key to its readers, and a malformed appsettings file next to a healthy one.
 */
import { cpSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeConfigLinks, Engine, type NavigationResult } from '../src/index.js';
import { REPO_ROOT } from './helpers.js';

const FULLSTACK = join(REPO_ROOT, 'fixtures', 'fullstack');
const OPTIONS = { env: {}, configOverrides: { semantic: { enabled: false }, embedding: { enabled: false } } };

/** `reader path:line source → key file#key confidence` rows of the label's reads_config edges (unlinked: `→ (key) unlinked`). */
function configRows(engine: Engine): string[] {
  const rows: string[] = [];
  for (const key of engine.store.canonicalDump('working').edges.keys()) {
    const m = /^([^|]+)\|[^#]+#([^|(]+)[^|]*\|\d+ -reads_config\/(\w+)\/[^>]*-> (?:node ([^|]+)\|json:file:[^#]+#([^|]+)\|\d+|unresolved (config:\S+)) .*@(\d+) /.exec(key);
    if (m) rows.push(m[4] !== undefined ? `${m[1]}:${m[7]} ${m[2]} → ${m[4]}#${m[5]} ${m[3]}` : `${m[1]}:${m[7]} ${m[2]} → (${m[6]}) unlinked`);
  }
  return rows.sort();
}

function names(r: NavigationResult): string[] {
  const byId = new Map(r.nodes.map((n) => [n.id, n.qualifiedName]));
  byId.set(r.symbol.id, r.symbol.qualifiedName);
  return r.edges.map((e) => `${byId.get(e.from)} -${e.type}/${e.confidence}-> ${e.to === null ? e.targetName : byId.get(e.to)}`);
}

describe('configuration reads across fixtures/fullstack', () => {
  let engine: Engine;
  let report: Awaited<ReturnType<Engine['index']>>;
  beforeAll(async () => {
    const target = join(mkdtempSync(join(tmpdir(), 'ca-config-')), 'repo');
    cpSync(FULLSTACK, target, { recursive: true });
    engine = Engine.open(target, OPTIONS);
    report = await engine.index();
  }, 180_000);
  afterAll(() => engine.close());

  it('links every read to its keys with the confidence derived by hand', () => {
    // Both appsettings files are in backend/, a directory above backend/Config/ShopConfig.cs: the reader's project.
    expect(configRows(engine)).toEqual([
      // services.Configure<ShopOptions>(configuration.GetSection("Shop")): the section exists → exact.
      'backend/Config/ShopConfig.cs:17 Shop.Api.Config.ShopConfig.AddShopConfig → backend/appsettings.json#Shop exact',
      // GetConnectionString("Orders") → ConnectionStrings:Orders (appsettings.json only).
      'backend/Config/ShopConfig.cs:18 Shop.Api.Config.ShopConfig.AddShopConfig → backend/appsettings.json#ConnectionStrings.Orders exact',
      // GetValue<bool>(SearchSection + ":Enabled"), SearchSection a const "Features:Search": in both files.
      'backend/Config/ShopConfig.cs:19 Shop.Api.Config.ShopConfig.AddShopConfig → backend/appsettings.Development.json#Features.Search.Enabled exact',
      'backend/Config/ShopConfig.cs:19 Shop.Api.Config.ShopConfig.AddShopConfig → backend/appsettings.json#Features.Search.Enabled exact',
      // GetSection("Features").GetSection("Search")["PageSize"]: only appsettings.json has PageSize.
      'backend/Config/ShopConfig.cs:20 Shop.Api.Config.ShopConfig.AddShopConfig → backend/appsettings.json#Features.Search.PageSize exact',
      // configuration[$"Tenants:{tenant}:Region"]: computed, never linked.
      'backend/Config/ShopConfig.cs:26 Shop.Api.Config.ShopConfig.Region → (config:computed:$"Tenants:{tenant}:Region") unlinked',
      // configuration["Payments:Region"]: no file has Payments (nor any section above the key).
      'backend/Config/ShopConfig.cs:27 Shop.Api.Config.ShopConfig.Region → (config:value:Payments:Region) unlinked',
      // PriceService(IOptions<ShopOptions> options): ShopOptions is bound to Shop (line 17), by type name → probable.
      'backend/Config/ShopConfig.cs:31 Shop.Api.Config.PriceService → backend/appsettings.json#Shop probable',
    ]);
    // 7 reads (line 19 one read, two links), 5 linked, 1 computed, 1 missing; 6 edges written.
    expect(report.configLinks && { ...report.configLinks, ms: 0 }).toEqual({ reads: 7, linked: 5, computed: 1, missing: 1, links: 6, ms: 0 });
  });

  it('lists the unresolved reads with their reason', () => {
    expect(engine.unresolvedConfigReads()).toEqual([
      { path: 'backend/Config/ShopConfig.cs', line: 26, source: 'Shop.Api.Config.ShopConfig.Region', read: '$"Tenants:{tenant}:Region"', reason: 'computed' },
      { path: 'backend/Config/ShopConfig.cs', line: 27, source: 'Shop.Api.Config.ShopConfig.Region', read: 'Payments:Region', reason: 'missing' },
    ]);
  });

  it('refs and callers of a key list its readers; impact of a section reaches the readers of its keys', () => {
    expect(names(engine.navigate('refs', 'ConnectionStrings:Orders'))).toEqual(['Shop.Api.Config.ShopConfig.AddShopConfig -reads_config/exact-> ConnectionStrings:Orders']);
    // `Shop` alone would name the namespace: a file and key address the key.
    expect(names(engine.navigate('callers', 'backend/appsettings.json#Shop'))).toEqual([
      'Shop.Api.Config.ShopConfig.AddShopConfig -reads_config/exact-> Shop',
      'Shop.Api.Config.PriceService -reads_config/probable-> Shop',
    ]);
    // Features of appsettings.json: its descendants Features:Search:Enabled and …:PageSize are read by AddShopConfig.
    const impact = engine.navigate('impact', 'backend/appsettings.json#Features');
    // Nothing calls AddShopConfig in the fixture: the walk stops at it.
    expect(impact.byFile!.map((f) => [f.path, f.symbols.map((x) => `${x.qualifiedName}@${x.depth} via ${x.via.join(' → ')}`)])).toEqual([
      ['backend/Config/ShopConfig.cs', ['Shop.Api.Config.ShopConfig.AddShopConfig@1 via Features:Search:Enabled']],
    ]);
    expect(impact.edges.map((e) => [e.type, e.confidence, e.path, e.line])).toEqual([
      ['reads_config', 'exact', 'backend/Config/ShopConfig.cs', 19],
      ['reads_config', 'exact', 'backend/Config/ShopConfig.cs', 20],
    ]);
  });
});

describe('a malformed appsettings file', () => {
  let engine: Engine;
  let repo: string;
  beforeAll(async () => {
    repo = join(mkdtempSync(join(tmpdir(), 'ca-config-bad-')), 'repo');
    mkdirSync(join(repo, 'Api'), { recursive: true });
    // Line 3 never closes "Cache"'s string: the reader stops there, after the key Search (lines 1-2).
    writeFileSync(join(repo, 'Api', 'appsettings.json'), '{\n  "Search": { "Enabled": true },\n  "Cache": { "Ttl": "5\n}\n');
    writeFileSync(join(repo, 'Api', 'appsettings.Development.json'), '{ "Cache": { "Ttl": 60 } }\n');
    writeFileSync(
      join(repo, 'Api', 'Reader.cs'),
      'namespace Api;\npublic class Reader\n{\n    public bool On(IConfiguration c) => c.GetValue<bool>("Search:Enabled");\n    public string? Ttl(IConfiguration config) => config["Cache:Ttl"];\n}\n',
    );
    engine = Engine.open(repo, OPTIONS);
    await engine.index();
  }, 180_000);
  afterAll(() => engine.close());

  it('keeps the keys before the fault, says where it is, and links the reads to what is indexed', () => {
    expect(engine.status().problems).toEqual([{ path: 'Api/appsettings.json', status: 'partial', reason: 'malformed JSON at line 3: unterminated string' }]);
    expect(configRows(engine)).toEqual([
      // Search:Enabled was read before the fault.
      'Api/Reader.cs:4 Api.Reader.On → Api/appsettings.json#Search.Enabled exact',
      // Cache:Ttl: lost in the broken file, still in appsettings.Development.json.
      'Api/Reader.cs:5 Api.Reader.Ttl → Api/appsettings.Development.json#Cache.Ttl exact',
    ]);
  });

  it('relinks on the next index once the file is fixed (only the JSON file changed)', async () => {
    writeFileSync(join(repo, 'Api', 'appsettings.json'), '{\n  "Search": { "Enabled": true },\n  "Cache": { "Ttl": "5" }\n}\n');
    const again = await engine.index();
    expect(engine.status().problems).toEqual([]);
    expect(configRows(engine)).toEqual([
      'Api/Reader.cs:4 Api.Reader.On → Api/appsettings.json#Search.Enabled exact',
      // Cache:Ttl is in both files now: two links.
      'Api/Reader.cs:5 Api.Reader.Ttl → Api/appsettings.Development.json#Cache.Ttl exact',
      'Api/Reader.cs:5 Api.Reader.Ttl → Api/appsettings.json#Cache.Ttl exact',
    ]);
    expect(again.configLinks && { ...again.configLinks, ms: 0 }).toEqual({ reads: 2, linked: 2, computed: 0, missing: 0, links: 3, ms: 0 });
  });
});

describe('which project\'s appsettings a read reaches (computeConfigLinks, pure)', () => {
  // Two services with their own appsettings and a shared library without any.
  const keys = [
    { id: 1, qualifiedName: 'Session', path: 'src/WebApp/appsettings.json', line: 2 },
    { id: 2, qualifiedName: 'Identity', path: 'src/Basket/appsettings.json', line: 2 },
    { id: 3, qualifiedName: 'Identity', path: 'src/Ordering/appsettings.json', line: 2 },
    { id: 4, qualifiedName: 'Identity:Url', path: 'src/Ordering/appsettings.json', line: 3 },
  ];
  const read = (edgeId: number, path: string, targetKey: string) => ({ edgeId, sourceId: edgeId, source: `S${edgeId}`, path, line: 1, targetKey, targetName: '' });

  it('never links a read to another project\'s file when the reader has appsettings of its own; a shared library reaches every project', () => {
    const { links, unresolved } = computeConfigLinks(
      [
        // WebhookClient has its own appsettings (below) without Session: not WebApp's key.
        read(1, 'src/WebhookClient/Extensions.cs', 'config:value:Session'),
        // ServiceDefaults has no appsettings: Identity of both services, probable.
        read(2, 'src/ServiceDefaults/Auth.cs', 'config:section:Identity'),
        // Ordering reads its own Identity:Url (exact), Basket's Identity:Url does not exist.
        read(3, 'src/Ordering/Program.cs', 'config:value:identity:url'),
        // Basket reads Identity:Url: only its section Identity is there → probable to the section.
        read(4, 'src/Basket/Program.cs', 'config:value:Identity:Url'),
      ],
      [...keys, { id: 5, qualifiedName: 'Logging', path: 'src/WebhookClient/appsettings.json', line: 2 }],
    );
    expect(links).toEqual([
      { edgeId: 2, keyId: 2, confidence: 'probable' },
      { edgeId: 2, keyId: 3, confidence: 'probable' },
      { edgeId: 3, keyId: 4, confidence: 'exact' },
      { edgeId: 4, keyId: 2, confidence: 'probable' },
    ]);
    expect(unresolved).toEqual([{ path: 'src/WebhookClient/Extensions.cs', line: 1, source: 'S1', read: 'Session', reason: 'missing' }]);
  });
});
