import { describe, expect, it } from 'vitest';
import { unresolvedKey } from '@ca/schema';
import { byQName, edgeRows, nodeRows, parseFixture, parseText } from './helpers.js';

describe('fixture: src/auth/authService.ts', () => {
  it('extracts every symbol with kind, qualified name and line span', async () => {
    const index = await parseFixture('src/auth/authService.ts');
    expect(index.parseStatus).toBe('ok');
    expect(index.language).toBe('ts');
    expect(index.lineCount).toBe(73);
    expect(nodeRows(index)).toEqual([
      'file src/auth/authService.ts 1-73',
      'interface Session 5-8',
      'property Session.userId 6-6',
      'property Session.token 7-7',
      'class AuthService 15-73',
      'property AuthService.failedAttempts 16-16',
      'property AuthService.currentUser 17-17',
      'constructor AuthService.constructor 19-19',
      'method AuthService.login 22-36',
      'method AuthService.refresh 39-39',
      'method AuthService.refresh 40-40',
      'method AuthService.refresh 41-49',
      'getter AuthService.activeUser 52-54',
      'setter AuthService.activeUser 56-58',
      'method AuthService.describe 60-62',
      'method AuthService.checkPassword 64-67',
      'method AuthService.issueToken 69-72',
    ]);
    expect(index.exports).toEqual(['Session', 'AuthService']);
  });

  it('keys overloads by parameter types and accessors by @get/@set', async () => {
    const index = await parseFixture('src/auth/authService.ts');
    const refresh = index.nodes.filter((n) => n.qualifiedName === 'AuthService.refresh');
    expect(refresh.map((n) => n.symbolKey)).toEqual([
      'ts:file:src/auth/authService.ts#AuthService.refresh(Session)',
      'ts:file:src/auth/authService.ts#AuthService.refresh(string)',
      'ts:file:src/auth/authService.ts#AuthService.refresh(Session|string)',
    ]);
    expect(refresh.map((n) => n.disambiguator)).toEqual([0, 0, 0]);
    const accessors = index.nodes.filter((n) => n.qualifiedName === 'AuthService.activeUser');
    expect(accessors.map((n) => [n.kind, n.symbolKey])).toEqual([
      ['getter', 'ts:file:src/auth/authService.ts#AuthService.activeUser@get()'],
      ['setter', 'ts:file:src/auth/authService.ts#AuthService.activeUser@set(string|null)'],
    ]);
    expect(byQName(index, 'AuthService.constructor').symbolKey).toBe(
      'ts:file:src/auth/authService.ts#AuthService.constructor(TokenStore)',
    );
    expect(index.nodes[0]!.symbolKey).toBe('ts:file:src/auth/authService.ts#');
  });

  it('fills signature, parameters, return type, modifiers, doc and public API flags', async () => {
    const index = await parseFixture('src/auth/authService.ts');
    const login = byQName(index, 'AuthService.login');
    expect(login.signature).toBe('async login(user: string, password: string): Promise<Session>');
    expect(login.parameterCount).toBe(2);
    expect(login.returnType).toBe('Promise<Session>');
    expect(login.modifiers).toEqual(['async']);
    expect(login.doc).toBe('Logs a user in and stores a fresh session token.');
    expect(login.isPublicApi).toBe(true);
    expect(login.parentLocalId).toBe(byQName(index, 'AuthService').localId);

    const check = byQName(index, 'AuthService.checkPassword');
    expect(check.modifiers).toEqual(['private']);
    expect(check.isPublicApi).toBe(false);
    expect(check.doc).toBeNull();

    const cls = byQName(index, 'AuthService');
    expect(cls.signature).toBe('export class AuthService');
    expect(cls.modifiers).toEqual(['export']);
    expect(cls.parameterCount).toBeNull();
    expect(cls.doc).toBe(
      'Authenticates users and keeps their sessions fresh.\n\nFailed logins are rate limited per user; tokens are refreshed shortly before they expire.',
    );
    const getter = byQName(index, 'AuthService.activeUser');
    expect([getter.signature, getter.returnType, getter.parameterCount]).toEqual([
      'get activeUser(): string | null',
      'string | null',
      0,
    ]);
  });

  it('span covers the declaration without its JSDoc, in UTF-8 bytes', async () => {
    const index = await parseFixture('src/auth/authService.ts');
    const cls = byQName(index, 'AuthService');
    const { readFileSync } = await import('node:fs');
    const { FIXTURE_ROOT } = await import('./helpers.js');
    const bytes = readFileSync(`${FIXTURE_ROOT}src/auth/authService.ts`);
    const text = bytes.subarray(cls.span.startByte, cls.span.endByte).toString('utf8');
    expect(text.startsWith('export class AuthService {')).toBe(true);
    expect(text.endsWith('}')).toBe(true);
    expect(index.nodes[0]!.span).toEqual({ startLine: 1, endLine: 73, startByte: 0, endByte: bytes.length });
  });

  it('resolves this-calls to members and imported names to module paths', async () => {
    const index = await parseFixture('src/auth/authService.ts');
    const rows = edgeRows(index);
    expect(rows).toContain('calls AuthService.login -> checkPassword local:AuthService.checkPassword approximate L27');
    expect(rows).toContain('calls AuthService.login -> issueToken local:AuthService.issueToken approximate L32');
    expect(rows).toContain('references AuthService.login -> MAX_LOGIN_ATTEMPTS mod:src/utils/format#MAX_LOGIN_ATTEMPTS approximate L24');
    expect(rows).toContain('calls AuthService.describe -> formatDate mod:src/utils/format#formatDate approximate L61');
    expect(rows).toContain('calls AuthService.constructor -> MemoryTokenStore mod:src/auth/tokenStore#MemoryTokenStore approximate L19');
    expect(rows).toContain('references AuthService.activeUser -> currentUser local:AuthService.currentUser approximate L53');
    expect(rows.filter((r) => r.startsWith('imports'))).toEqual([
      'imports src/auth/authService.ts -> MemoryTokenStore mod:src/auth/tokenStore#MemoryTokenStore exact L1',
      'imports src/auth/authService.ts -> StoredToken mod:src/auth/tokenStore#StoredToken exact L1',
      'imports src/auth/authService.ts -> TokenStore mod:src/auth/tokenStore#TokenStore exact L1',
      'imports src/auth/authService.ts -> formatDate mod:src/utils/format#formatDate exact L2',
      'imports src/auth/authService.ts -> MAX_LOGIN_ATTEMPTS mod:src/utils/format#MAX_LOGIN_ATTEMPTS exact L2',
    ]);
    const unresolved = index.edges.find((e) => e.type === 'calls' && e.target.name === 'Date.now');
    expect(unresolved?.target.key).toBe(unresolvedKey('Date.now'));
    const local = index.edges.find((e) => e.type === 'calls' && e.target.name === 'checkPassword');
    expect(local?.target.key).toBe('ts:file:src/auth/authService.ts#AuthService.checkPassword(string,string)');
  });
});

describe('fixture: src/auth/tokenStore.ts', () => {
  it('has the exact edge set', async () => {
    const index = await parseFixture('src/auth/tokenStore.ts');
    expect(edgeRows(index, true)).toEqual([
      'contains src/auth/tokenStore.ts -> StoredToken local:StoredToken exact L2',
      'contains StoredToken -> value local:StoredToken.value exact L3',
      'contains StoredToken -> expiresAt local:StoredToken.expiresAt exact L4',
      'contains src/auth/tokenStore.ts -> TokenStore local:TokenStore exact L8',
      'contains TokenStore -> save local:TokenStore.save exact L9',
      'contains TokenStore -> load local:TokenStore.load exact L10',
      'contains TokenStore -> clear local:TokenStore.clear exact L11',
      'contains src/auth/tokenStore.ts -> MemoryTokenStore local:MemoryTokenStore exact L18',
      'contains MemoryTokenStore -> tokens local:MemoryTokenStore.tokens exact L19',
      'contains MemoryTokenStore -> save local:MemoryTokenStore.save exact L21',
      'contains MemoryTokenStore -> load local:MemoryTokenStore.load exact L25',
      'contains MemoryTokenStore -> clear local:MemoryTokenStore.clear exact L34',
      'implements MemoryTokenStore -> TokenStore local:TokenStore approximate L18',
      'references TokenStore.save -> StoredToken local:StoredToken approximate L9',
      'references TokenStore.load -> StoredToken local:StoredToken approximate L10',
      'calls MemoryTokenStore.tokens -> Map approximate L19',
      'references MemoryTokenStore.tokens -> StoredToken local:StoredToken approximate L19',
      'references MemoryTokenStore.save -> StoredToken local:StoredToken approximate L21',
      'calls MemoryTokenStore.save -> this.tokens.set approximate L22',
      'references MemoryTokenStore.save -> tokens local:MemoryTokenStore.tokens approximate L22',
      'references MemoryTokenStore.load -> StoredToken local:StoredToken approximate L25',
      'calls MemoryTokenStore.load -> this.tokens.get approximate L26',
      'references MemoryTokenStore.load -> tokens local:MemoryTokenStore.tokens approximate L26',
      'calls MemoryTokenStore.load -> Date.now approximate L27',
      'calls MemoryTokenStore.load -> clear local:MemoryTokenStore.clear approximate L28',
      'calls MemoryTokenStore.clear -> this.tokens.delete approximate L35',
      'references MemoryTokenStore.clear -> tokens local:MemoryTokenStore.tokens approximate L35',
    ]);
  });

  it('collapses member bodies in the class chunk', async () => {
    const index = await parseFixture('src/auth/tokenStore.ts');
    expect(byQName(index, 'MemoryTokenStore').chunkText).toBe(
      [
        'export class MemoryTokenStore implements TokenStore {',
        '  private readonly tokens = new Map<string, StoredToken>();',
        '',
        '  save(userId: string, token: StoredToken): void { /* 3 lines collapsed */ }',
        '',
        '  load(userId: string): StoredToken | null { /* 8 lines collapsed */ }',
        '',
        '  clear(userId: string): void { /* 3 lines collapsed */ }',
        '}',
      ].join('\n'),
    );
    // A method keeps its own body in full.
    expect(byQName(index, 'MemoryTokenStore.clear').chunkText).toBe(
      'clear(userId: string): void {\n    this.tokens.delete(userId);\n  }',
    );
  });
});

describe('fixture: src/billing', () => {
  it('qualifies namespace members and collapses the nested class in the namespace chunk', async () => {
    const index = await parseFixture('src/billing/invoice.ts');
    expect(nodeRows(index)).toEqual([
      'file src/billing/invoice.ts 1-31',
      'enum InvoiceStatus 2-7',
      'type_alias LineItem 10-10',
      'namespace Billing 12-31',
      'variable Billing.TAX_RATE 14-14',
      'class Billing.Invoice 16-30',
      'property Billing.Invoice.status 17-17',
      'constructor Billing.Invoice.constructor 19-19',
      'method Billing.Invoice.total 22-25',
      'method Billing.Invoice.void 27-29',
    ]);
    expect(byQName(index, 'Billing').chunkText).toBe(
      [
        'export namespace Billing {',
        '  /** Tax rate applied to every invoice, as a fraction. */',
        '  export const TAX_RATE = 0.2;',
        '',
        '  export class Invoice { /* 15 lines collapsed */ }',
        '}',
      ].join('\n'),
    );
    expect(byQName(index, 'Billing.Invoice.total').isPublicApi).toBe(true);
    expect(edgeRows(index)).toContain('references Billing.Invoice.total -> TAX_RATE local:Billing.TAX_RATE approximate L24');
  });

  it('abstract class, subclass and inherits edge', async () => {
    const index = await parseFixture('src/billing/paymentProvider.ts');
    const base = byQName(index, 'PaymentProvider');
    expect(base.modifiers).toEqual(['export', 'abstract']);
    expect(byQName(index, 'PaymentProvider.charge').modifiers).toEqual(['abstract']);
    expect(byQName(index, 'PaymentProvider.log').isPublicApi).toBe(false);
    expect(edgeRows(index)).toContain('inherits StripeProvider -> PaymentProvider local:PaymentProvider approximate L19');
  });

  it('terminatePlan is documented and calls through the provider', async () => {
    const index = await parseFixture('src/billing/billingAccount.ts');
    const m = byQName(index, 'BillingAccount.terminatePlan');
    expect([m.span.startLine, m.span.endLine, m.signature]).toEqual([19, 26, 'async terminatePlan(): Promise<void>']);
    expect(m.doc).toBe(
      "Ends the customer's plan: cancels the recurring subscription at the payment provider\nso no further monthly charges happen, and voids invoices that are still open.",
    );
    expect(edgeRows(index).filter((r) => r.includes('terminatePlan'))).toEqual([
      'calls BillingAccount.terminatePlan -> this.provider.cancelSubscription approximate L21',
      'references BillingAccount.terminatePlan -> invoices local:BillingAccount.invoices approximate L23',
      'references BillingAccount.terminatePlan -> InvoiceStatus mod:src/billing/invoice#InvoiceStatus approximate L24',
      'calls BillingAccount.terminatePlan -> invoice.void approximate L24',
    ]);
    expect(byQName(index, 'BillingAccount.constructor').signature).toBe(
      'constructor(readonly customerId: string, private readonly provider: PaymentProvider, private subscriptionId: string | null)',
    );
  });
});

describe('fixture: src/utils/format.ts', () => {
  it('functions, arrow functions, exported consts and @deprecated', async () => {
    const index = await parseFixture('src/utils/format.ts');
    expect(nodeRows(index)).toEqual([
      'file src/utils/format.ts 1-35',
      'variable MAX_LOGIN_ATTEMPTS 2-2',
      'variable DEFAULT_LOCALE 4-4',
      'function formatDate 7-9',
      'function formatCurrency 12-13',
      'function formatDateTime 19-21',
      'function pad 23-25',
      'function truncate 28-30',
      'function formatDuration 32-35',
    ]);
    const arrow = byQName(index, 'formatCurrency');
    expect([arrow.signature, arrow.parameterCount, arrow.returnType, arrow.symbolKey]).toEqual([
      "export const formatCurrency = (cents: number, currency = 'USD'): string =>",
      2,
      'string',
      'ts:file:src/utils/format.ts#formatCurrency(number,_)',
    ]);
    const deprecated = byQName(index, 'formatDateTime');
    expect(deprecated.modifiers).toEqual(['export', 'deprecated']);
    expect(deprecated.doc).toBe('Formats a date with the time of day.\n@deprecated Use formatDate and let the UI add the time.');
    const pad = byQName(index, 'pad');
    expect([pad.isPublicApi, pad.modifiers]).toEqual([false, []]);
    expect(byQName(index, 'MAX_LOGIN_ATTEMPTS').modifiers).toEqual(['export', 'const']);
    expect(index.exports).toEqual([
      'MAX_LOGIN_ATTEMPTS',
      'DEFAULT_LOCALE',
      'formatDate',
      'formatCurrency',
      'formatDateTime',
      'truncate',
      'formatDuration',
    ]);
  });
});

describe('fixture: components', () => {
  it('Button.tsx: function component returning JSX, and the collapsed file chunk', async () => {
    const index = await parseFixture('src/components/Button.tsx');
    expect(nodeRows(index)).toEqual([
      'file src/components/Button.tsx 1-17',
      'interface ButtonProps 4-8',
      'property ButtonProps.label 5-5',
      'property ButtonProps.onClick 6-6',
      'property ButtonProps.variant 7-7',
      'component Button 11-17',
    ]);
    expect(byQName(index, 'Button').symbolKey).toBe('ts:file:src/components/Button.tsx#Button(ButtonProps)');
    expect(byQName(index, 'ButtonProps.onClick').modifiers).toEqual(['optional']);
    expect(index.nodes[0]!.chunkText).toBe(
      [
        "import React from 'react';",
        '',
        '/** Props of {@link Button}. */',
        'export interface ButtonProps { /* 5 lines collapsed */ }',
        '',
        '/** A themed button. Disabled while `onClick` is missing. */',
        "export function Button({ label, onClick, variant = 'primary' }: ButtonProps) { /* 7 lines collapsed */ }",
        '',
      ].join('\n'),
    );
  });

  it('UserCard.tsx: React.FC arrow component with a JSX call to the imported Button', async () => {
    const index = await parseFixture('src/components/UserCard.tsx');
    const card = byQName(index, 'UserCard');
    expect([card.kind, card.span.startLine, card.span.endLine, card.isPublicApi]).toEqual(['component', 12, 21, true]);
    expect(edgeRows(index)).toEqual([
      'imports src/components/UserCard.tsx -> React spec:react#default exact L1',
      'imports src/components/UserCard.tsx -> Button mod:src/components/Button#Button exact L2',
      'imports src/components/UserCard.tsx -> truncate mod:src/utils/format#truncate exact L3',
      'references UserCard -> React.FC spec:react#default approximate L12',
      'references UserCard -> UserCardProps local:UserCardProps approximate L12',
      'calls UserCard -> truncate mod:src/utils/format#truncate approximate L13',
      'calls UserCard -> Button mod:src/components/Button#Button approximate L18',
    ]);
  });

  it('index.ts barrel is a module with re-exports', async () => {
    const index = await parseFixture('src/components/index.ts');
    expect(nodeRows(index)).toEqual(['module src/components/index.ts 1-4']);
    expect(index.exports).toEqual(['Button', 'ButtonProps']);
    expect(index.reExports).toEqual([
      { modulePath: 'src/components/Button', names: ['Button'] },
      { modulePath: 'src/components/Button', names: ['ButtonProps'] },
      { modulePath: 'src/components/UserCard', names: '*' },
    ]);
    expect(edgeRows(index)).toEqual([
      'imports src/components/index.ts -> Button mod:src/components/Button#Button exact L2',
      'imports src/components/index.ts -> ButtonProps mod:src/components/Button#ButtonProps exact L3',
      'imports src/components/index.ts -> * mod:src/components/UserCard#* exact L4',
    ]);
  });

  it('JSX returned by a function nested in a symbol (object-literal member, callback) does not make the symbol a component', async () => {
    const index = await parseText(
      'src/actions.tsx',
      [
        'export const createUndoAction = (history: H) => ({',
        '  name: "undo",',
        '  PanelComponent: ({ onClick }: P) => {',
        '    return <Button onClick={onClick} />;',
        '  },',
        '});',
        'export function rows(items: string[]) {',
        '  const out = items.map((item) => <li>{item}</li>);',
        '  return out;',
        '}',
        'export function List({ items }: { items: string[] }) {',
        '  return <ul>{items.map((item) => <li>{item}</li>)}</ul>;',
        '}',
        'export const Memo = memo(function Inner() {',
        '  return <div />;',
        '});',
        'export class View {',
        '  render() {',
        '    return <div />;',
        '  }',
        '}',
        '',
      ].join('\n'),
    );
    expect(index.nodes.filter((n) => n.kind !== 'file').map((n) => `${n.kind} ${n.qualifiedName}`)).toEqual([
      'function createUndoAction',
      'function rows',
      'component List',
      'component Memo',
      'class View',
      'method View.render',
    ]);
  });

  it('component detection rules', async () => {
    const index = await parseText(
      'src/components/cases.tsx',
      [
        "import React, { memo, forwardRef, Component } from 'react';",
        'export const Typed: React.FC<{ a: string }> = (p) => null;',
        'export const Memo = React.memo(function Inner() { return null; });',
        'export const Ref = forwardRef((props, ref) => null);',
        'export function renderRow() { return (<tr />); }',
        'export const lower: React.FC = () => null;',
        'export class Legacy extends React.Component { render() { return <div />; } }',
        'export class Pure extends Component {}',
        'export function helper() { const x = <b />; return 1; }',
        'export default () => <main />;',
      ].join('\n'),
    );
    expect(index.nodes.map((n) => `${n.kind} ${n.name}`)).toEqual([
      'file cases.tsx',
      'component Typed',
      'component Memo',
      'component Ref',
      'component renderRow',
      'function lower',
      'component Legacy',
      'method render',
      'component Pure',
      'function helper',
      'component default',
    ]);
  });
});

describe('fixture: JavaScript and generated files', () => {
  it('helpers.js: language js, require imports and module.exports', async () => {
    const index = await parseFixture('src/legacy/helpers.js');
    expect(index.language).toBe('js');
    expect(nodeRows(index)).toEqual([
      'file src/legacy/helpers.js 1-27',
      'function retry 8-17',
      'function sleep 19-21',
      'function stamp 23-25',
    ]);
    expect(index.exports).toEqual(['default', 'retry', 'stamp']);
    expect(byQName(index, 'retry').isPublicApi).toBe(true);
    expect(byQName(index, 'sleep').isPublicApi).toBe(false);
    expect(byQName(index, 'retry').symbolKey).toBe('js:file:src/legacy/helpers.js#retry(_,_,_)');
    expect(edgeRows(index)).toEqual([
      'imports src/legacy/helpers.js -> formatDate mod:src/utils/format#formatDate exact L1',
      'imports src/legacy/helpers.js -> config mod:src/legacy/config#* exact L2',
      'calls retry -> fn approximate L11',
      'calls retry -> sleep local:sleep approximate L14',
      'calls sleep -> Promise approximate L20',
      'calls sleep -> setTimeout approximate L20',
      'calls stamp -> formatDate mod:src/utils/format#formatDate approximate L24',
      'calls stamp -> Date approximate L24',
      'references stamp -> config mod:src/legacy/config#* approximate L24',
      'references src/legacy/helpers.js -> retry local:retry approximate L27',
      'references src/legacy/helpers.js -> stamp local:stamp approximate L27',
    ]);
  });

  it('App.jsx: default-exported component, JSX call through the barrel', async () => {
    const index = await parseFixture('src/App.jsx');
    expect(index.language).toBe('js');
    const app = byQName(index, 'App');
    expect([app.kind, app.modifiers, app.span.startLine, app.span.endLine]).toEqual(['component', ['export', 'default'], 8, 26]);
    expect(index.exports).toEqual(['default']);
    expect(edgeRows(index)).toContain('calls App -> UserCard mod:src/components#UserCard approximate L25');
    expect(edgeRows(index)).toContain('calls src/App.jsx -> AuthService mod:src/auth/authService#AuthService approximate L5');
  });

  it('generated flag from path and header comment', async () => {
    expect((await parseFixture('src/generated/api.generated.ts')).generated).toBe(true);
    expect((await parseFixture('src/utils/format.ts')).generated).toBe(false);
    expect((await parseText('src/x.ts', '/* @generated by protoc */\nexport const a = 1;\n')).generated).toBe(true);
    expect((await parseText('src/__generated__/schema.ts', 'export const a = 1;\n')).generated).toBe(true);
    expect((await parseText('src/x.g.ts', 'export const a = 1;\n')).generated).toBe(true);
    expect((await parseText('src/x.ts', "const s = '@generated';\n")).generated).toBe(false);
  });
});
