import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../src/index.js';
import { writeHubRepo } from './hubRepo.js';

/** No semantic pass, no vectors: syntactic edges and the name channel. */
const PLAIN = { env: {}, configOverrides: { semantic: { enabled: false }, embedding: { enabled: false } } };

describe('result facts name the alphabetically first three neighbours', () => {
  let engine: Engine;
  beforeAll(async () => {
    engine = Engine.open(writeHubRepo(), PLAIN);
    await engine.index();
  });
  afterAll(() => engine.close());

  it('callers of a hub: the first three of its five callers by name, not by the order of their files', async () => {
    const r = await engine.search('hub', { channels: ['name'], limit: 1 });
    // Distinct callers: zulu, yankee, xray, whiskey, victor (each twice: counted once) and hub
    // itself (the recursive call), so 6; the names leave hub out and take victor, whiskey, xray
    // (a.ts…c.ts, the first files, hold zulu, yankee, xray). hub calls only itself: no callees.
    expect(r.results.map((x) => [x.qualifiedName, x.callerCount, x.callers, x.callees])).toEqual([['hub', 6, ['victor', 'whiskey', 'xray'], []]]);
  });

  it('callees: the first three of five by name, not in the order of the calls', async () => {
    const r = await engine.search('omega', { channels: ['name'], limit: 1 });
    // omega calls zulu, yankee, xray, whiskey, victor in that order; nothing calls omega.
    expect(r.results.map((x) => [x.qualifiedName, x.callerCount, x.callers, x.callees])).toEqual([['omega', 0, [], ['victor', 'whiskey', 'xray']]]);
  });
});
