import { describe, expect, it } from 'vitest';
import { Store, testProjectsKey } from '../src/index.js';

describe('test projects per label (decision 051)', () => {
  const facts = new Map([
    ['qa/Checks/Checks.csproj', { test: true, reason: 'PackageReference xunit' }],
    ['src/Shop/Shop.csproj', { test: false, reason: 'no test framework reference' }],
  ]);

  it('a label reads back its own test projects only', () => {
    const store = Store.open(':memory:');
    store.writer.setProjectFacts('working', facts);
    store.writer.setProjectFacts('main', new Map([['src/Shop/Shop.csproj', { test: true, reason: 'IsTestProject true' }]]));
    expect([...store.reader('working').testProjects()]).toEqual(['qa/Checks/Checks.csproj']);
    expect([...store.reader('main').testProjects()]).toEqual(['src/Shop/Shop.csproj']);
    expect([...store.reader('other').testProjects()]).toEqual([]);
    expect(store.reader('working').projectFacts()).toEqual(facts);
    store.close();
  });

  it('a promoted crawl carries its staging label facts to the label; removing the label drops them', () => {
    const store = Store.open(':memory:');
    store.writer.setProjectFacts('v1', new Map([['old/Old.csproj', { test: true, reason: 'IsTestProject true' }]]));
    const crawl = store.labels.beginCrawl('v1', 'a'.repeat(40));
    store.writer.setProjectFacts(crawl.staging, facts);
    // The label keeps its own facts until the crawl is promoted.
    expect([...store.reader('v1').testProjects()]).toEqual(['old/Old.csproj']);
    store.labels.promote(crawl);
    expect([...store.reader('v1').testProjects()]).toEqual(['qa/Checks/Checks.csproj']);
    expect(store.reader('v1').metadata(testProjectsKey(crawl.staging))).toBeNull();
    store.labels.remove('v1');
    expect(store.reader('v1').metadata(testProjectsKey('v1'))).toBeNull();
    store.close();
  });
});
