import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTsSemanticService, type SemanticResult, type TsSemanticService } from '../src/index.js';
import { edgeRows, ensureWorkerBuilt, MONOREPO, projectOf, TS_APP } from './semanticHelpers.js';

const C = 'ts:file:packages/core/src/';
const W = 'ts:file:packages/web/src/';

let service: TsSemanticService;
let result: SemanticResult;
const progress: [number, number][] = [];

beforeAll(async () => {
  ensureWorkerBuilt();
  service = createTsSemanticService({ maxOldSpaceSizeMb: 512 });
  result = await service.analyzeRepository(MONOREPO, { deadlineMs: 120_000, onProgress: (done, total) => progress.push([done, total]) });
}, 180_000);

afterAll(async () => {
  await service.dispose();
});

describe('ts-monorepo: projects', () => {
  it('one program per workspace package; the solution tsconfig is not a project', () => {
    expect(result.projects.map((p) => [p.tsconfig, p.packageName, p.status])).toEqual([
      ['packages/core/tsconfig.json', '@mono/core', 'ok'],
      ['packages/web/tsconfig.json', '@mono/web', 'ok'],
    ]);
    expect(projectOf(result.projects, 'packages/web/tsconfig.json').files).toEqual([
      'packages/web/src/App.tsx',
      'packages/web/src/Button.tsx',
      'packages/web/src/PriceTag.tsx',
      'packages/web/src/components/index.ts',
      'packages/web/src/index.ts',
      'packages/web/src/react.d.ts',
    ]);
    expect(projectOf(result.projects, 'packages/core/tsconfig.json').files).toEqual([
      'packages/core/src/checkout.ts',
      'packages/core/src/index.ts',
      'packages/core/src/money.ts',
      'packages/core/src/payments/gateway.ts',
      'packages/core/src/payments/index.ts',
      'packages/core/src/payments/paypalGateway.ts',
      'packages/core/src/payments/stripeGateway.ts',
      'packages/core/src/shapes.ts',
    ]);
    for (const p of result.projects) expect(p.fileErrors).toEqual([]);
  });

  it('reports progress: the planned total once, then each project finished', () => {
    expect(progress).toEqual([
      [0, 2],
      [1, 2],
      [2, 2],
    ]);
  });

  it('handshake reports protocol, capabilities and extractor version', () => {
    expect(service.workerInfo?.protocolVersion).toBe(4);
    expect(service.workerInfo?.extractorVersion).toBe('ts-semantic-7');
    expect(service.workerInfo?.capabilities).toEqual([
      'calls',
      'references',
      'implements',
      'inherits',
      'overrides',
      'accepts',
      'imports',
      'key_refinements',
      'reference_counts',
      'regions',
      'prepare',
    ]);
  });
});

describe('ts-monorepo: exact edges', () => {
  it('App.tsx: barrel imports resolve to the real definitions, new/JSX/method calls', () => {
    const web = projectOf(result.projects, 'packages/web/tsconfig.json');
    const rows = edgeRows(web.edges.filter((e) => e.sourcePath === 'packages/web/src/App.tsx'), true);
    expect(rows).toEqual([
      `imports ${W}App.tsx# -> ${C}checkout.ts#checkout(PaymentGateway,Money) exact L1`,
      `imports ${W}App.tsx# -> ${C}shapes.ts#Circle exact L1`,
      `imports ${W}App.tsx# -> ${C}payments/stripeGateway.ts#StripeGateway exact L1`,
      `imports ${W}App.tsx# -> ${C}payments/gateway.ts#PaymentGateway exact L2`,
      `imports ${W}App.tsx# -> ${W}Button.tsx#Button(ButtonProps) exact L3`,
      `imports ${W}App.tsx# -> ${W}PriceTag.tsx#PriceTag(_) exact L3`,
      `references ${W}App.tsx# -> ${C}payments/gateway.ts#PaymentGateway exact L5`,
      `calls ${W}App.tsx# -> ${C}payments/stripeGateway.ts#StripeGateway exact L5`,
      `calls ${W}App.tsx#App() -> ${C}shapes.ts#Circle exact L8`,
      `calls ${W}App.tsx#App() -> ${C}checkout.ts#checkout(PaymentGateway,Money) exact L9`,
      // The literals passed as a Money (checkout's parameter, the price prop) write its properties.
      `references ${W}App.tsx#App() -> ${C}money.ts#Money.amount exact L9`,
      `calls ${W}App.tsx#App() -> ${C}shapes.ts#Circle.area() exact L9`,
      `references ${W}App.tsx#App() -> ${C}money.ts#Money.currency exact L9`,
      `calls ${W}App.tsx#App() -> ${W}PriceTag.tsx#PriceTag(_) exact L12`,
      // JSX attributes set the component's props.
      `references ${W}App.tsx#App() -> ${W}PriceTag.tsx#PriceTagProps.price exact L12`,
      `references ${W}App.tsx#App() -> ${C}money.ts#Money.amount exact L12`,
      `references ${W}App.tsx#App() -> ${C}money.ts#Money.currency exact L12`,
      `references ${W}App.tsx#App() -> ${W}PriceTag.tsx#PriceTagProps.onBuy exact L12`,
      `calls ${W}App.tsx#App() -> ${W}Button.tsx#Button(ButtonProps) exact L13`,
      `references ${W}App.tsx#App() -> ${W}Button.tsx#ButtonProps.label exact L13`,
      // shape is a Circle: describe() is inherited, the call resolves to Shape.describe.
      `calls ${W}App.tsx#App() -> ${C}shapes.ts#Shape.describe() exact L13`,
    ]);
  });

  it('PriceTag.tsx: alias call fmt() → formatMoney in core, JSX <Button/> → Button, accepts props', () => {
    const web = projectOf(result.projects, 'packages/web/tsconfig.json');
    const rows = edgeRows(web.edges.filter((e) => e.sourcePath === 'packages/web/src/PriceTag.tsx'), true);
    expect(rows).toEqual([
      `imports ${W}PriceTag.tsx# -> ${W}react.d.ts#react.FC exact L1`,
      `imports ${W}PriceTag.tsx# -> ${C}money.ts#formatMoney(Money) exact L2`,
      `imports ${W}PriceTag.tsx# -> ${C}money.ts#Money exact L3`,
      `imports ${W}PriceTag.tsx# -> ${W}Button.tsx#Button(ButtonProps) exact L4`,
      `references ${W}PriceTag.tsx#PriceTagProps.price -> ${C}money.ts#Money exact L7`,
      `accepts ${W}PriceTag.tsx#PriceTag(_) -> ${W}PriceTag.tsx#PriceTagProps exact L11`,
      `references ${W}PriceTag.tsx#PriceTag(_) -> ${W}react.d.ts#react.FC exact L11`,
      `references ${W}PriceTag.tsx#PriceTag(_) -> ${W}PriceTag.tsx#PriceTagProps exact L11`,
      // `({ price, onBuy })` destructures the props.
      `references ${W}PriceTag.tsx#PriceTag(_) -> ${W}PriceTag.tsx#PriceTagProps.price exact L11`,
      `references ${W}PriceTag.tsx#PriceTag(_) -> ${W}PriceTag.tsx#PriceTagProps.onBuy exact L11`,
      `calls ${W}PriceTag.tsx#PriceTag(_) -> ${C}money.ts#formatMoney(Money) exact L14`,
      `calls ${W}PriceTag.tsx#PriceTag(_) -> ${W}Button.tsx#Button(ButtonProps) exact L15`,
      `references ${W}PriceTag.tsx#PriceTag(_) -> ${W}Button.tsx#ButtonProps.label exact L15`,
      `references ${W}PriceTag.tsx#PriceTag(_) -> ${W}Button.tsx#ButtonProps.onClick exact L15`,
    ]);
  });

  it('Button.tsx: function component accepts its props interface', () => {
    const web = projectOf(result.projects, 'packages/web/tsconfig.json');
    expect(edgeRows(web.edges.filter((e) => e.sourcePath === 'packages/web/src/Button.tsx'))).toEqual([
      `accepts ${W}Button.tsx#Button(ButtonProps) -> ${W}Button.tsx#ButtonProps exact`,
      `references ${W}Button.tsx#Button(ButtonProps) -> ${W}Button.tsx#ButtonProps exact`,
      `references ${W}Button.tsx#Button(ButtonProps) -> ${W}Button.tsx#ButtonProps.onClick exact`,
      `references ${W}Button.tsx#Button(ButtonProps) -> ${W}Button.tsx#ButtonProps.label exact`,
    ]);
  });

  it('barrels: re-exports (incl. a re-exported default export) point at the real declarations', () => {
    const web = projectOf(result.projects, 'packages/web/tsconfig.json');
    expect(edgeRows(web.edges.filter((e) => e.sourcePath === 'packages/web/src/components/index.ts'))).toEqual([
      `imports ${W}components/index.ts# -> ${W}Button.tsx#Button(ButtonProps) exact`,
      `imports ${W}components/index.ts# -> ${W}PriceTag.tsx# exact`,
    ]);
  });

  it('implements, inherits and overrides (incl. abstract and member → interface member)', () => {
    const core = projectOf(result.projects, 'packages/core/tsconfig.json');
    const rows = edgeRows(core.edges.filter((e) => ['implements', 'inherits', 'overrides'].includes(e.type)));
    expect(rows.sort()).toEqual(
      [
        `implements ${C}payments/paypalGateway.ts#PaypalGateway -> ${C}payments/gateway.ts#PaymentGateway exact`,
        `implements ${C}payments/paypalGateway.ts#PaypalGateway.name -> ${C}payments/gateway.ts#PaymentGateway.name exact`,
        `implements ${C}payments/paypalGateway.ts#PaypalGateway.charge(Money) -> ${C}payments/gateway.ts#PaymentGateway.charge(Money) exact`,
        `implements ${C}payments/paypalGateway.ts#PaypalGateway.refund(string) -> ${C}payments/gateway.ts#PaymentGateway.refund(string) exact`,
        `implements ${C}payments/stripeGateway.ts#StripeGateway -> ${C}payments/gateway.ts#PaymentGateway exact`,
        `implements ${C}payments/stripeGateway.ts#StripeGateway.name -> ${C}payments/gateway.ts#PaymentGateway.name exact`,
        `implements ${C}payments/stripeGateway.ts#StripeGateway.charge(Money) -> ${C}payments/gateway.ts#PaymentGateway.charge(Money) exact`,
        `implements ${C}payments/stripeGateway.ts#StripeGateway.refund(string) -> ${C}payments/gateway.ts#PaymentGateway.refund(string) exact`,
        `inherits ${C}shapes.ts#Circle -> ${C}shapes.ts#Shape exact`,
        `inherits ${C}shapes.ts#Square -> ${C}shapes.ts#Shape exact`,
        `overrides ${C}shapes.ts#Circle.area() -> ${C}shapes.ts#Shape.area() exact`,
        `overrides ${C}shapes.ts#Square.area() -> ${C}shapes.ts#Shape.area() exact`,
        `overrides ${C}shapes.ts#Square.describe() -> ${C}shapes.ts#Shape.describe() exact`,
      ].sort(),
    );
  });

  it('checkout: call through an interface-typed receiver → the interface member', () => {
    const core = projectOf(result.projects, 'packages/core/tsconfig.json');
    expect(edgeRows(core.edges.filter((e) => e.sourceKey === `${C}checkout.ts#checkout(PaymentGateway,Money)`), true)).toEqual([
      `references ${C}checkout.ts#checkout(PaymentGateway,Money) -> ${C}payments/gateway.ts#PaymentGateway exact L6`,
      `references ${C}checkout.ts#checkout(PaymentGateway,Money) -> ${C}money.ts#Money exact L6`,
      `calls ${C}checkout.ts#checkout(PaymentGateway,Money) -> ${C}payments/gateway.ts#PaymentGateway.charge(Money) exact L7`,
      `calls ${C}checkout.ts#checkout(PaymentGateway,Money) -> ${C}money.ts#formatMoney(Money) exact L8`,
      `references ${C}checkout.ts#checkout(PaymentGateway,Money) -> ${C}payments/gateway.ts#PaymentGateway.name exact L8`,
    ]);
  });

  it('this/super calls and abstract method calls', () => {
    const core = projectOf(result.projects, 'packages/core/tsconfig.json');
    expect(edgeRows(core.edges.filter((e) => e.sourcePath === 'packages/core/src/shapes.ts' && e.type === 'calls'), true)).toEqual([
      `calls ${C}shapes.ts#Shape.describe() -> ${C}shapes.ts#Shape.area() exact L5`,
      `calls ${C}shapes.ts#Square.describe() -> ${C}shapes.ts#Shape.describe() exact L29`,
    ]);
  });

  it('every edge is exact and every target lies in the repository', () => {
    for (const p of result.projects) {
      for (const e of p.edges) {
        expect(e.confidence).toBe('exact');
        expect(e.targetPath.startsWith('packages/')).toBe(true);
        expect(e.targetKey.includes('node_modules')).toBe(false);
      }
    }
  });
});

describe('ts-monorepo: keys and counts', () => {
  it('package entry exports (through barrels) and their members get package-scoped keys', () => {
    const web = projectOf(result.projects, 'packages/web/tsconfig.json');
    expect(web.keyRefinements.map((k) => `${k.path} ${k.oldKey} => ${k.newKey}`)).toEqual([
      `packages/web/src/App.tsx ${W}App.tsx#App() => ts:pkg:@mono/web#App()`,
      `packages/web/src/Button.tsx ${W}Button.tsx#Button(ButtonProps) => ts:pkg:@mono/web#Button(ButtonProps)`,
      `packages/web/src/PriceTag.tsx ${W}PriceTag.tsx#PriceTag(_) => ts:pkg:@mono/web#PriceTag(_)`,
      `packages/web/src/PriceTag.tsx ${W}PriceTag.tsx#PriceTagProps => ts:pkg:@mono/web#PriceTagProps`,
      `packages/web/src/PriceTag.tsx ${W}PriceTag.tsx#PriceTagProps.onBuy => ts:pkg:@mono/web#PriceTagProps.onBuy`,
      `packages/web/src/PriceTag.tsx ${W}PriceTag.tsx#PriceTagProps.price => ts:pkg:@mono/web#PriceTagProps.price`,
    ]);
    const core = projectOf(result.projects, 'packages/core/tsconfig.json');
    const newKeys = core.keyRefinements.map((k) => k.newKey);
    expect(newKeys).toEqual([
      'ts:pkg:@mono/core#checkout(PaymentGateway,Money)',
      'ts:pkg:@mono/core#Money',
      'ts:pkg:@mono/core#Money.amount',
      'ts:pkg:@mono/core#Money.currency',
      'ts:pkg:@mono/core#formatMoney(Money)',
      'ts:pkg:@mono/core#parseMoney(string)',
      'ts:pkg:@mono/core#PaymentGateway',
      'ts:pkg:@mono/core#PaymentGateway.charge(Money)',
      'ts:pkg:@mono/core#PaymentGateway.name',
      'ts:pkg:@mono/core#PaymentGateway.refund(string)',
      'ts:pkg:@mono/core#PaypalGateway',
      'ts:pkg:@mono/core#PaypalGateway.charge(Money)',
      'ts:pkg:@mono/core#PaypalGateway.name',
      'ts:pkg:@mono/core#PaypalGateway.refund(string)',
      'ts:pkg:@mono/core#StripeGateway',
      'ts:pkg:@mono/core#StripeGateway.attempts',
      'ts:pkg:@mono/core#StripeGateway.charge(Money)',
      'ts:pkg:@mono/core#StripeGateway.name',
      'ts:pkg:@mono/core#StripeGateway.refund(string)',
      'ts:pkg:@mono/core#Circle',
      'ts:pkg:@mono/core#Circle.area()',
      'ts:pkg:@mono/core#Circle.constructor(number)',
      'ts:pkg:@mono/core#Shape',
      'ts:pkg:@mono/core#Shape.area()',
      'ts:pkg:@mono/core#Shape.describe()',
      'ts:pkg:@mono/core#Square',
      'ts:pkg:@mono/core#Square.area()',
      'ts:pkg:@mono/core#Square.constructor(number)',
      'ts:pkg:@mono/core#Square.describe()',
    ]);
    // Non-exported and not-re-exported symbols keep their file-scoped keys.
    const olds = core.keyRefinements.map((k) => k.oldKey);
    expect(olds).not.toContain(`${C}money.ts#roundCents(number)`);
    expect(olds).not.toContain(`${C}money.ts#defaultCurrency`);
    expect(core.keyRefinements.find((k) => k.newKey === 'ts:pkg:@mono/core#formatMoney(Money)')).toEqual({
      path: 'packages/core/src/money.ts',
      oldKey: `${C}money.ts#formatMoney(Money)`,
      newKey: 'ts:pkg:@mono/core#formatMoney(Money)',
    });
  });

  it('reference counts per project (calls + references sites)', () => {
    const count = (tsconfig: string, key: string): number | undefined =>
      projectOf(result.projects, tsconfig).referenceCounts.find((c) => c.symbolKey === key)?.count;
    expect(count('packages/core/tsconfig.json', `${C}money.ts#formatMoney(Money)`)).toBe(2);
    expect(count('packages/web/tsconfig.json', `${C}money.ts#formatMoney(Money)`)).toBe(1);
    expect(count('packages/web/tsconfig.json', `${W}Button.tsx#Button(ButtonProps)`)).toBe(2);
    expect(count('packages/core/tsconfig.json', `${C}money.ts#Money`)).toBe(6);
    expect(count('packages/core/tsconfig.json', `${C}payments/stripeGateway.ts#StripeGateway.attempts`)).toBe(2);
    expect(count('packages/core/tsconfig.json', `${C}money.ts#roundCents(number)`)).toBe(1);
    // Imports are not reference sites.
    expect(count('packages/core/tsconfig.json', `${C}shapes.ts#Circle`)).toBeUndefined();
  });

  it('files option limits the pass to the projects and files asked for; package keys cover the project', async () => {
    const r = await service.analyzeRepository(MONOREPO, { files: ['packages/web/src/PriceTag.tsx'], deadlineMs: 60_000 });
    expect(r.projects.map((p) => [p.tsconfig, p.status, p.files])).toEqual([
      ['packages/web/tsconfig.json', 'ok', ['packages/web/src/PriceTag.tsx']],
    ]);
    expect(new Set(r.projects[0]!.edges.map((e) => e.sourcePath))).toEqual(new Set(['packages/web/src/PriceTag.tsx']));
    // Package keys are stated for the whole project (its `keyScope`), not only the analysed file,
    // so that a key whose entry export went away can be reverted: @mono/web's entry
    // (src/index.ts) exports App, and through components/index.ts Button (the default of
    // Button.tsx; ButtonProps is not re-exported) and everything of PriceTag.tsx.
    expect(r.projects[0]!.keyRefinements.map((k) => k.newKey)).toEqual([
      'ts:pkg:@mono/web#App()',
      'ts:pkg:@mono/web#Button(ButtonProps)',
      'ts:pkg:@mono/web#PriceTag(_)',
      'ts:pkg:@mono/web#PriceTagProps',
      'ts:pkg:@mono/web#PriceTagProps.onBuy',
      'ts:pkg:@mono/web#PriceTagProps.price',
    ]);
  }, 60_000);
});

describe('ts-app (single project, TSX + JS with allowJs)', () => {
  it('JSX in a .jsx file, calls into TS, overrides in a class hierarchy', async () => {
    const r = await service.analyzeRepository(TS_APP, { deadlineMs: 60_000 });
    expect(r.projects.map((p) => [p.tsconfig, p.packageName, p.status])).toEqual([['tsconfig.json', 'ts-app-fixture', 'ok']]);
    const edges = r.projects[0]!.edges;
    expect(edgeRows(edges.filter((e) => e.sourcePath === 'src/App.jsx'), true)).toEqual([
      'imports js:file:src/App.jsx# -> ts:file:src/components/UserCard.tsx#UserCard(_) exact L2',
      'imports js:file:src/App.jsx# -> ts:file:src/auth/authService.ts#AuthService exact L3',
      'calls js:file:src/App.jsx# -> ts:file:src/auth/authService.ts#AuthService exact L5',
      'calls js:file:src/App.jsx#App() -> ts:file:src/auth/authService.ts#AuthService.login(string,string) exact L13',
      'references js:file:src/App.jsx#App() -> ts:file:src/auth/authService.ts#Session.userId exact L14',
      'calls js:file:src/App.jsx#App() -> ts:file:src/components/UserCard.tsx#UserCard(_) exact L25',
    ]);
    expect(edgeRows(edges.filter((e) => e.type === 'overrides'))).toEqual([
      'overrides ts:file:src/billing/paymentProvider.ts#StripeProvider.charge(string,number) -> ts:file:src/billing/paymentProvider.ts#PaymentProvider.charge(string,number) exact',
      'overrides ts:file:src/billing/paymentProvider.ts#StripeProvider.cancelSubscription(string) -> ts:file:src/billing/paymentProvider.ts#PaymentProvider.cancelSubscription(string) exact',
    ]);
    // JS (allowJs, checkJs=false) still resolves calls, including into TS files.
    expect(edgeRows(edges.filter((e) => e.sourcePath === 'src/legacy/helpers.js' && e.type === 'calls'))).toEqual([
      'calls js:file:src/legacy/helpers.js#retry(_,_,_) -> js:file:src/legacy/helpers.js#sleep(_) exact',
      'calls js:file:src/legacy/helpers.js#stamp(_) -> ts:file:src/utils/format.ts#formatDate(Date) exact',
    ]);
  }, 60_000);
});
