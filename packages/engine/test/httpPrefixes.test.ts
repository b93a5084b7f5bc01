/**
 * URL prefixes declared in another file (issue 31, decision 038) across
 * fixtures/fullstack-prefixes, end to end through `Engine.index()`: a client base URL from an
 * imported environment constant (a nested property too) or from a base class constructor's
 * `super(...)` argument; a controller's route prefix from a base controller or an `[ApiV1]`-style
 * `RouteAttribute` subclass — each declared in another file — and the cases that must stay
 * approximate. Then edits of the files declaring the prefixes, indexed incrementally, against a
 * clean index of the same tree.
 *
 * An endpoint node keeps the name its own file gives (`GET /{seriesId}`: SeriesController.cs does
 * not hold the prefix); the comments give the route the label-wide pass resolves it to.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../src/index.js';
import { againstClean } from './cleanIndex.js';
import { REPO_ROOT } from './helpers.js';

const FIXTURE = join(REPO_ROOT, 'fixtures', 'fullstack-prefixes');
const OPTIONS = { env: {}, configOverrides: { semantic: { enabled: false }, embedding: { enabled: false } } };

/** `client path:line → endpoint name (endpoint file) confidence` rows of the label's client calls (`→ (request) unlinked`), sorted. */
function rows(engine: Engine): string[] {
  const out: string[] = [];
  for (const key of engine.store.canonicalDump('working').edges.keys()) {
    const m = /^([^|]+)\|[^|]*\|\d+ -http_calls\/(\w+)\/[^>]*-> (?:node ([^|]+)\|endpoint:([^|]+)\|\d+|unresolved http:(\S+ \S+)) .*@(\d+) /.exec(key);
    if (m) out.push(m[4] !== undefined ? `${m[1]}:${m[6]} → ${m[4]} (${m[3]}) ${m[2]}` : `${m[1]}:${m[6]} → (${m[5]}) unlinked`);
  }
  return out.sort();
}

const S = 'backend/Controllers/SeriesController.cs';
const T = 'backend/Controllers/ThingsController.cs';
const R = 'backend/Controllers/ReportsController.cs';
const G = 'backend/Controllers/GadgetsController.cs';

describe('URL prefixes declared in another file (fixtures/fullstack-prefixes)', () => {
  let repo: string;
  let engine: Engine;
  beforeAll(async () => {
    repo = join(mkdtempSync(join(tmpdir(), 'ca-prefixes-')), 'repo');
    cpSync(FIXTURE, repo, { recursive: true });
    engine = Engine.open(repo, OPTIONS);
    await engine.index();
  }, 180_000);
  afterAll(() => {
    engine.close();
    rmSync(dirname(repo), { recursive: true, force: true });
  });

  it('ca routes lists each endpoint under the route the label resolves, its own file\'s name kept as declaredAs', () => {
    const listed = engine.routes().routes.map((r) => `${r.name} | ${r.declaredAs ?? '-'} | ${r.path} | ${r.approximate ?? 'exact'}`);
    expect(listed).toEqual([
      // [ApiV2] names two attribute classes (Attributes/ and Legacy/, two templates): unresolved, the file's own name, approximate.
      `GET /list | - | ${G} | the route prefix may come from [ApiV2], an attribute declared in another file`,
      // BaseApiController's [Route("api/[controller]")], [controller] = Reports.
      `GET /api/reports/daily | GET /daily | ${R} | exact`,
      `GET /api/series/{seriesId} | GET /{seriesId} | ${S} | exact`,
      `POST /api/series/all | POST /all | ${S} | exact`,
      // [HttpGet] without a template: the controller's route alone.
      `GET /api/series | GET /series/list | ${S} | exact`,
      // [ApiV1]: base("api/v1/[controller]") through the constant ApiBase, [controller] = Things.
      `GET /api/v1/things/remaining | GET /remaining | ${T} | exact`,
      `DELETE /api/v1/things/{id} | DELETE /{id} | ${T} | exact`,
    ]);
  });

  it('links every call with the confidence derived by hand once the prefixes are resolved', () => {
    expect(rows(engine)).toEqual(
      [
        // baseUrl = environment.apiUrl ('http://' + HOST + ':5000/api/' in environment.ts, HOST a const there: path /api/)
        // + 'series/' + id → GET /api/series/{}; SeriesController inherits [Route("api/[controller]")] from
        // BaseApiController (another file): GET /api/series/{seriesId}, {} in {seriesId} → exact.
        `client/src/app/series.service.ts:10 → GET /{seriesId} (${S}) exact`,
        // POST /api/series/all vs [HttpPost("all")] → POST /api/series/all.
        `client/src/app/series.service.ts:14 → POST /all (${S}) exact`,
        // `${this.baseUrl}series` → GET /api/series vs the template-less [HttpGet] List → GET /api/series (its node is
        // named by the conventional route its file alone gives).
        `client/src/app/series.service.ts:18 → GET /series/list (${S}) exact`,
        // environment.api.reports (a nested property, '/api/reports/') + 'daily' vs ReportsController → GET /api/reports/daily.
        `client/src/app/series.service.ts:22 → GET /daily (${R}) exact`,
        // environment.hubUrl is computed (location.origin + '/hubs/'): no literal, the prefix stays unknown →
        // GET ~/series/{} matched on its suffix: approximate.
        `client/src/app/hub.service.ts:11 → GET /{seriesId} (${S}) approximate`,
        // this.url: ServiceHelpers (another file) stores constructor parameter 1 in `url`; ThingsService passes
        // '/api/v1/Things/'; the prefix ServiceHelpers may add is parameter 2, the APP_BASE_HREF (the deployment path,
        // dropped like an origin) → GET /api/v1/Things/remaining; ThingsController's [ApiV1] passes
        // "api/v1/[controller]" to RouteAttribute → GET /api/v1/things/remaining: exact.
        `client/src/app/things.service.ts:12 → GET /remaining (${T}) exact`,
        // `${this.url}${id}` → DELETE /api/v1/Things/{} vs DELETE /api/v1/things/{id}: exact.
        `client/src/app/things.service.ts:16 → DELETE /{id} (${T}) exact`,
        // GET /api/v2/gadgets/list: [ApiV2] names two attribute classes with different templates (api/v2, legacy/v2):
        // the endpoint stays approximate (`GET /list`, matched on its last segment).
        `client/src/app/things.service.ts:20 → GET /list (${G}) approximate`,
        // RestBase is declared twice (rest.base.ts: url = parameter 0; rest.base.old.ts: url = parameter 1): two
        // possible values, the prefix stays unknown → GET ~/remaining, suffix match: approximate.
        `client/src/app/rest/remaining.service.ts:9 → GET /remaining (${T}) approximate`,
      ].sort(),
    );
  });

  it('a prefix fact is no call: navigation leaves its edge out', () => {
    // BaseApiController's only edge out is its route prefix fact (an `http_calls` edge with no target): no callee.
    expect(engine.navigate('callees', 'Shelf.Api.Controllers.BaseApiController').edges).toEqual([]);
    // The fact is stored all the same (the linker reads it).
    expect(engine.store.httpLinks.prefixFacts('working').filter((f) => f.path === 'backend/Controllers/BaseApiController.cs').map((f) => f.targetKey)).toEqual([
      'httpfact:{"kind":"route","class":"BaseApiController","templates":["api/[controller]"],"attributes":[],"base":"ControllerBase"}',
    ]);
  });

  it('follows edits of the files declaring the prefixes on the next index, as a clean index does', async () => {
    const env = join(repo, 'client/src/environments/environment.ts');
    writeFileSync(env, readFileSync(env, 'utf8').replace(":5000/api/'", ":5000/api/v9/'"));
    await engine.index();
    const series = rows(engine).filter((r) => r.startsWith('client/src/app/series.service.ts'));
    expect(series).toEqual(
      [
        // The base URL is now /api/v9/: no endpoint has those whole paths (the prefix is known, so no suffix match).
        'client/src/app/series.service.ts:10 → (GET ~/series/{}) unlinked',
        'client/src/app/series.service.ts:14 → (POST ~/series/all) unlinked',
        'client/src/app/series.service.ts:18 → (GET ~/series) unlinked',
        // environment.api.reports did not change.
        `client/src/app/series.service.ts:22 → GET /daily (${R}) exact`,
      ].sort(),
    );
    expect(await againstClean(engine, repo, OPTIONS)).toEqual([]);

    const base = join(repo, 'backend/Controllers/BaseApiController.cs');
    writeFileSync(base, readFileSync(base, 'utf8').replace('[Route("api/[controller]")]', '[Route("api/v9/[controller]")]'));
    await engine.index();
    expect(rows(engine).filter((r) => r.startsWith('client/src/app/series.service.ts'))).toEqual(
      [
        // The base controller's prefix follows: /api/v9/series/… match again.
        `client/src/app/series.service.ts:10 → GET /{seriesId} (${S}) exact`,
        `client/src/app/series.service.ts:14 → POST /all (${S}) exact`,
        `client/src/app/series.service.ts:18 → GET /series/list (${S}) exact`,
        // ReportsController now serves /api/v9/reports/daily; the call asks /api/reports/daily.
        'client/src/app/series.service.ts:22 → (GET ~/daily) unlinked',
      ].sort(),
    );
    expect(await againstClean(engine, repo, OPTIONS)).toEqual([]);
  }, 600_000);
});
