/**
 * Configuration reads found by the C# syntactic extractor (decision 048): each read is a
 * `reads_config` edge from the declaration around it, keyed by what it reads (`configReadKey`),
 * unlinked (`approximate`, no target) until the engine's linker runs. Expected rows by hand.
 */
import type { FileIndex, LanguageAdapter } from '@ca/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCsAdapter } from '../src/index.js';

let cs: LanguageAdapter;
beforeAll(async () => {
  cs = await createCsAdapter();
});
afterAll(async () => {
  await cs.dispose?.();
});

/** `line source key` per reads_config edge. */
function reads(index: FileIndex): string[] {
  const byId = new Map(index.nodes.map((n) => [n.localId, n.qualifiedName]));
  return index.edges.filter((e) => e.type === 'reads_config').map((e) => `${e.line} ${byId.get(e.sourceLocalId)} ${e.target.key} ${e.confidence}`);
}

describe('configuration reads', () => {
  it('finds indexers, GetValue, GetSection chains, connection strings and bindings, with constant keys', async () => {
    const text = [
      'namespace App;', // 1
      'public static class Setup', // 2
      '{', // 3
      '    const string Root = "Cache";', // 4
      '    public static void Run(WebApplicationBuilder builder, IConfiguration configuration, IServiceCollection services)', // 5
      '    {', // 6
      '        var a = builder.Configuration["Cache:Ttl"];', // 7
      '        var b = configuration.GetSection(Root).GetValue<int>("Size");', // 8
      '        var c = configuration.GetRequiredSection("Auth").GetSection("Oidc").Value;', // 9
      '        var d = configuration.GetSection("Features").Get<FeatureFlags>();', // 10
      '        services.AddOptions<MailOptions>().BindConfiguration($"{Root}:Mail");', // 11
      '        services.AddOptions<SmsOptions>().Bind(configuration.GetSection("Sms")).ValidateOnStart();', // 12
      '        var e = configuration.GetSection("Regions").GetChildren();', // 13
      '        var f = configuration.GetConnectionString("Default");', // 14
      '        var g = headers["X-Id"];', // 15
      '        var h = configuration[key];', // 16
      '        var i = dict.GetValue("Cache:Ttl");', // 17
      '    }', // 18
      '}', // 19
    ].join('\n');
    const index = await cs.parse({ path: 'Setup.cs', text });
    expect(reads(index)).toEqual([
      '7 App.Setup.Run config:value:Cache:Ttl approximate',
      // Root is the const "Cache": GetSection(Root) then GetValue("Size").
      '8 App.Setup.Run config:value:Cache:Size approximate',
      // `.Value` of a section is the value of its path.
      '9 App.Setup.Run config:value:Auth:Oidc approximate',
      '10 App.Setup.Run config:bind:FeatureFlags=Features approximate',
      '11 App.Setup.Run config:bind:MailOptions=Cache:Mail approximate',
      '12 App.Setup.Run config:bind:SmsOptions=Sms approximate',
      '13 App.Setup.Run config:section:Regions approximate',
      '14 App.Setup.Run config:value:ConnectionStrings:Default approximate',
      // Line 15: `headers` is no configuration (no edge); line 16: a computed key; line 17: a
      // non-generic GetValue on a receiver not named like configuration (no edge).
      '16 App.Setup.Run config:computed:key approximate',
    ]);
  });

  it('reads in top-level statements belong to the file; IOptions<T> uses to the member or type declaring them', async () => {
    const text = [
      'var builder = WebApplication.CreateBuilder(args);', // 1
      'builder.Services.Configure<ShopOptions>(builder.Configuration.GetSection("Shop"));', // 2
      'public class Prices(IOptionsMonitor<App.ShopOptions> monitor)', // 3
      '{', // 4
      '    private readonly IOptions<ShopOptions> _options;', // 5
      '}', // 6
    ].join('\n');
    const index = await cs.parse({ path: 'Program.cs', text });
    expect(reads(index)).toEqual([
      '2 Program.cs config:bind:ShopOptions=Shop approximate',
      '3 Prices config:options:ShopOptions approximate',
      // A field's type is walked in its class's scope (as the walker records the field's other type uses).
      '5 Prices config:options:ShopOptions approximate',
    ]);
  });

  it('a file that names no configuration API yields no reads', async () => {
    const index = await cs.parse({ path: 'A.cs', text: 'class A { string M(Dictionary<string,string> d) => d["Cache:Ttl"]; }' });
    expect(reads(index)).toEqual([]);
  });
});
