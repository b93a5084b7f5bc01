import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultConfig, parseConfig } from '@ca/schema';
import { discoverFiles, Engine, isSecretPath } from '../src/index.js';
import { tempDir } from './helpers.js';

describe('isSecretPath', () => {
  it('names the conventional secret files and leaves their templates and look-alikes alone', () => {
    const secret = [
      '.env', '.env.local', 'app/.env.production', '.env.ts', 'prod.env', 'server.pem', 'tls/server.key', 'id_rsa', '/home/u/.ssh/id_ed25519',
      'config/credentials.json', 'secrets.json', 'secrets.yaml', '.npmrc', '.pypirc', '.netrc', '.git-credentials', 'cert.pfx', 'cert.p12',
      'client_secret_123.apps.googleusercontent.com.json', 'infra/terraform.tfvars', 'infra/terraform.tfstate', 'C:\\repo\\.env', 'ID_RSA',
    ];
    const notSecret = [
      '.env.example', '.env.sample', '.env.template', 'env.ts', 'src/environment.ts', 'id_rsa.pub', 'keys.ts', 'secrets.ts', 'credentials.ts',
      'src/key.cs', 'monkey.ts', 'package.json', '',
    ];
    expect(secret.filter((p) => !isSecretPath(p))).toEqual([]);
    expect(notSecret.filter((p) => isSecretPath(p))).toEqual([]);
  });
});

/** A repository with a secret named like source (`src/.env.ts`) and the usual secret files beside real code. */
function repoWithSecrets(): string {
  const repo = join(tempDir(), 'repo');
  mkdirSync(join(repo, 'src'), { recursive: true });
  mkdirSync(join(repo, 'keys'), { recursive: true });
  writeFileSync(join(repo, 'src', 'app.ts'), 'export function startServer(): void {}\n');
  // A source-named secret: without the rule it would be parsed, its constant searchable by name and value.
  writeFileSync(join(repo, 'src', '.env.ts'), 'export const STRIPE_LIVE_KEY = "sk_live_zyxwvutsrqponm";\n');
  writeFileSync(join(repo, '.env'), 'DB_PASSWORD=hunter2\n');
  writeFileSync(join(repo, '.env.example'), 'DB_PASSWORD=\n');
  writeFileSync(join(repo, 'keys', 'server.pem'), '-----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----\n');
  writeFileSync(join(repo, '.npmrc'), '//registry.npmjs.org/:_authToken=npm_abcdef\n');
  return repo;
}

const SECRET_REASON = 'secret file (named like credentials or keys): not indexed; see indexing.index_secrets and indexing.secret_allow';

describe('secret files are not indexed by default', () => {
  it('discovery records each as skipped with the reason; the template is not a secret', () => {
    const repo = repoWithSecrets();
    const found = discoverFiles(repo, defaultConfig().indexing, new Set(['.ts']));
    expect(found.files.map((f) => f.path)).toEqual(['src/app.ts']);
    // .env.example is neither a secret nor a file of a known kind: not listed at all.
    expect(found.skipped.map((s) => [s.path, s.reason])).toEqual([
      ['.env', SECRET_REASON],
      ['.npmrc', SECRET_REASON],
      ['keys/server.pem', SECRET_REASON],
      ['src/.env.ts', SECRET_REASON],
    ]);
  });

  it('search never returns their content; index_secrets or a secret_allow pattern brings a source-named one back', async () => {
    const repo = repoWithSecrets();
    const off = { semantic: { enabled: false }, embedding: { enabled: false } };
    const engine = Engine.open(repo, { env: {}, configOverrides: off });
    try {
      await engine.index();
      for (const q of ['STRIPE_LIVE_KEY', 'sk_live_zyxwvutsrqponm', 'hunter2', 'authToken']) {
        expect((await engine.search(q)).results.map((r) => r.path)).toEqual([]);
      }
      expect(engine.status().problems.filter((p) => p.reason === SECRET_REASON).map((p) => p.path)).toEqual(['.env', '.npmrc', 'keys/server.pem', 'src/.env.ts']);
    } finally {
      engine.close();
    }
    for (const indexing of [{ index_secrets: true }, { secret_allow: ['src/.env.ts'] }]) {
      const allowed = Engine.open(repoWithSecrets(), { env: {}, configOverrides: { ...off, indexing } });
      try {
        await allowed.index();
        // The constant, then the file that declares it.
        expect((await allowed.search('STRIPE_LIVE_KEY')).results.map((r) => `${r.path} ${r.qualifiedName}`)).toEqual(['src/.env.ts STRIPE_LIVE_KEY', 'src/.env.ts src/.env.ts']);
      } finally {
        allowed.close();
      }
    }
  });

  it('the configuration is validated', () => {
    expect(() => parseConfig({ indexing: { secret_allow: [''] } })).toThrow(/indexing\.secret_allow\.0/);
    expect(() => parseConfig({ indexing: { index_secrets: 'yes' } })).toThrow(/indexing\.index_secrets/);
    expect(parseConfig({ indexing: { secret_allow: ['config/.env.ts'] } }).indexing.secret_allow).toEqual(['config/.env.ts']);
  });
});
