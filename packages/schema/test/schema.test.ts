import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  CaError,
  confidenceAtLeast,
  defaultConfig,
  disambiguate,
  envOverrides,
  loadConfig,
  parseSymbolKey,
  pathTokens,
  splitIdentifier,
  splitIdentifierText,
  splitText,
  symbolKey,
  toCaError,
} from '../src/index.js';

describe('symbolKey', () => {
  it('is deterministic and formatting-independent', () => {
    const a = symbolKey({ language: 'ts', scope: { kind: 'file', path: 'src/auth.ts' }, containers: ['AuthService'], name: 'login', kind: 'method', parameterTypes: ['string', 'Map<string,  number>'] });
    const b = symbolKey({ language: 'ts', scope: { kind: 'file', path: 'src/auth.ts' }, containers: ['AuthService'], name: 'login', kind: 'method', parameterTypes: ['string', 'Map<string, number>'] });
    expect(a).toBe('ts:file:src/auth.ts#AuthService.login(string,Map<string,number>)');
    expect(b).toBe(a);
  });

  it('keeps overloads, generic overloads and accessors distinct', () => {
    const base = { language: 'cs' as const, scope: { kind: 'global' as const }, containers: ['Acme', 'Repository`1'], name: 'Find', kind: 'method' as const };
    expect(symbolKey({ ...base, parameterTypes: ['int'] })).toBe('cs:global#Acme.Repository`1.Find(int)');
    expect(symbolKey({ ...base, parameterTypes: ['string'] })).toBe('cs:global#Acme.Repository`1.Find(string)');
    expect(symbolKey({ ...base, parameterTypes: ['TKey'], typeParameterCount: 1 })).toBe('cs:global#Acme.Repository`1.Find`1(TKey)');
    const acc = { language: 'ts' as const, scope: { kind: 'file' as const, path: 'a.ts' }, containers: ['C'], name: 'value' };
    expect(symbolKey({ ...acc, kind: 'getter', parameterTypes: [] })).toBe('ts:file:a.ts#C.value@get()');
    expect(symbolKey({ ...acc, kind: 'setter', parameterTypes: [null] })).toBe('ts:file:a.ts#C.value@set(_)');
    // Kind names that are also Object.prototype members must not leak into keys.
    expect(symbolKey({ ...acc, name: 'constructor', kind: 'constructor', parameterTypes: ['string'] })).toBe('ts:file:a.ts#C.constructor(string)');
  });

  it('package-scoped keys do not contain the file path', () => {
    expect(symbolKey({ language: 'ts', scope: { kind: 'package', name: '@acme/ui' }, containers: [], name: 'Button', kind: 'component' })).toBe('ts:pkg:@acme/ui#Button');
    expect(parseSymbolKey('ts:pkg:@acme/ui#Button')).toEqual({ language: 'ts', scope: 'pkg:@acme/ui', path: 'Button' });
  });

  it('disambiguates repeats in order', () => {
    expect(disambiguate([{ symbolKey: 'a' }, { symbolKey: 'b' }, { symbolKey: 'a' }, { symbolKey: 'a' }])).toEqual([0, 0, 1, 2]);
  });
});

describe('identifier splitting', () => {
  it('splits camel, pascal, snake, acronyms, digits and qualified names', () => {
    expect(splitIdentifier('getUserById')).toEqual(['get', 'user', 'by', 'id']);
    expect(splitIdentifier('HTMLParser2')).toEqual(['html', 'parser', '2']);
    expect(splitIdentifier('user_repository')).toEqual(['user', 'repository']);
    expect(splitIdentifier('global::MyApp.Core')).toEqual(['global', 'my', 'app', 'core']);
    expect(splitIdentifier('$variable')).toEqual(['variable']);
  });
  it('adds joined forms per segment', () => {
    expect(splitIdentifierText('getUserById')).toBe('get user by id getuserbyid');
    expect(splitIdentifierText('AuthService.Authenticate')).toBe('auth service authenticate authservice');
  });
  it('splits free text and paths', () => {
    expect(splitText('// retry with backoff: this.rateLimiter.tryAcquire()')).toBe(
      'retry with backoff this rate limiter try acquire ratelimiter tryacquire',
    );
    expect(pathTokens('src/auth/AuthService.ts')).toBe('src auth auth service authservice ts');
  });
});

describe('config', () => {
  it('has defaults', () => {
    const c = defaultConfig();
    expect(c.indexing.max_file_bytes).toBe(1048576);
    expect(c.indexing.safe_mode).toBe(true);
    expect(c.search.rrf_k).toBe(60);
    expect(c.search.budget).toBe(16384);
    expect(c.embedding.allow_download).toBe(true);
    expect([c.embedding.batch_size, c.embedding.batch_tokens, c.embedding.workers]).toEqual([16, 512, 0]);
    expect(c.graph.max_depth).toBe(20);
  });

  it('reads .codeagent/config.json and applies CA_<SECTION>_<KEY> overrides on top', () => {
    const repo = mkdtempSync(join(tmpdir(), 'ca-config-'));
    mkdirSync(join(repo, '.codeagent'));
    writeFileSync(join(repo, '.codeagent', 'config.json'), JSON.stringify({ indexing: { workers: 1, exclude: ['vendor/'] }, search: { limit: 5 } }));
    const c = loadConfig(repo, { env: { CA_SEARCH_LIMIT: '7', CA_EMBEDDING_MODEL_DIR: '/models', CA_INDEXING_SAFE_MODE: 'false', CA_INDEXING_KEEP: 'a/**,b/**', OTHER: 'x' } });
    expect(c.indexing.workers).toBe(1);
    expect(c.indexing.exclude).toEqual(['vendor/']);
    expect(c.indexing.keep).toEqual(['a/**', 'b/**']);
    expect(c.indexing.safe_mode).toBe(false);
    expect(c.search.limit).toBe(7);
    expect(c.embedding.model_dir).toBe('/models');
  });

  it('rejects bad values and unknown keys with config_invalid', () => {
    expect(() => envOverrides({ CA_SEARCH_LIMTI: '3' })).toThrowError(/unknown configuration variable CA_SEARCH_LIMTI/);
    const repo = mkdtempSync(join(tmpdir(), 'ca-config-'));
    mkdirSync(join(repo, '.codeagent'));
    writeFileSync(join(repo, '.codeagent', 'config.json'), '{ not json');
    expect(() => loadConfig(repo, { env: {} })).toThrowError(expect.objectContaining({ code: 'config_invalid' }));
    writeFileSync(join(repo, '.codeagent', 'config.json'), JSON.stringify({ search: { limit: -1 } }));
    expect(() => loadConfig(repo, { env: {} })).toThrowError(/search\.limit/);
    expect(() => loadConfig(repo, { env: { CA_INDEXING_WORKERS: 'many' } })).toThrowError(expect.objectContaining({ code: 'config_invalid' }));
    writeFileSync(join(repo, '.codeagent', 'config.json'), '{}');
    expect(() => loadConfig(repo, { env: { CA_EMBEDDING_WORKERS: '-1' } })).toThrowError(/embedding\.workers/);
    expect(() => loadConfig(repo, { env: { CA_EMBEDDING_WORKERS: '1.5' } })).toThrowError(/embedding\.workers/);
    expect(() => loadConfig(repo, { env: { CA_EMBEDDING_BATCH_TOKENS: '-512' } })).toThrowError(/embedding\.batch_tokens/);
    expect(loadConfig(repo, { env: { CA_EMBEDDING_WORKERS: '1', CA_EMBEDDING_BATCH_TOKENS: '0' } }).embedding).toMatchObject({ workers: 1, batch_tokens: 0 });
  });
});

describe('errors', () => {
  it('carries a stable code, context and cause', () => {
    const cause = new Error('boom');
    const e = new CaError('not_found', 'no symbol', { cause, context: { symbol: 'X' } });
    expect([e.code, e.message, e.context.symbol, e.cause, e.isUsage]).toEqual(['not_found', 'no symbol', 'X', cause, false]);
    expect(new CaError('ambiguous_symbol', 'x').isUsage).toBe(true);
    expect(e.toJSON()).toEqual({ code: 'not_found', message: 'no symbol' });
  });
  it('normalises unknown throwables', () => {
    const enoent = Object.assign(new Error('ENOENT: no such file'), { code: 'ENOENT' });
    expect(toCaError(enoent).code).toBe('io_error');
    expect(toCaError('text').code).toBe('internal');
    expect(confidenceAtLeast('exact', 'probable')).toBe(true);
    expect(confidenceAtLeast('approximate', 'probable')).toBe(false);
  });
});
