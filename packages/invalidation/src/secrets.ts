import ignore from 'ignore';
import type { Config } from '@ca/schema';

/**
 * File names that hold credentials by convention (decision 020). Matched on the last path
 * segment, case-insensitively. Files of these names are not indexed unless
 * `indexing.index_secrets` is on or an `indexing.secret_allow` pattern names them, and the MCP
 * file tools refuse them (`isSecretPath`).
 */
const SECRET_NAMES: ReadonlySet<string> = new Set([
  '.env',
  '.npmrc',
  '.pypirc',
  '.netrc',
  '_netrc',
  '.git-credentials',
  '.pgpass',
  '.htpasswd',
  '.dockercfg',
  '.secrets',
  'id_rsa',
  'id_dsa',
  'id_ecdsa',
  'id_ed25519',
  'credentials',
  'credentials.json',
  'secrets.json',
  'secrets.yml',
  'secrets.yaml',
  'secrets.toml',
]);

/** Extensions of key stores, certificates with private keys, and infrastructure state. */
const SECRET_EXTENSIONS = /\.(pem|key|p12|pfx|p8|jks|keystore|ppk|kdbx|tfvars|tfstate|env)$/i;

/** `.env.production`, `.env.local` … are secrets; the committed templates are not. */
const ENV_VARIANT = /^\.env\.(.+)$/i;
const ENV_TEMPLATES: ReadonlySet<string> = new Set(['example', 'sample', 'template', 'dist', 'defaults', 'schema']);

/** `client_secret_123.apps.googleusercontent.com.json` (OAuth client files). */
const CLIENT_SECRET = /^client_secret.*\.json$/i;

/** The list as documentation prints it (README, decision 020). */
export const SECRET_FILE_PATTERNS: readonly string[] = [
  ...[...SECRET_NAMES],
  '.env.* (not .env.example/.sample/.template/.dist/.defaults/.schema)',
  '*.pem', '*.key', '*.p12', '*.pfx', '*.p8', '*.jks', '*.keystore', '*.ppk', '*.kdbx', '*.tfvars', '*.tfstate', '*.env',
  'client_secret*.json',
];

/**
 * True when `path` (absolute, or relative with `/` or `\` separators) names a file that holds
 * credentials by convention: `.env`, `.env.local`, `*.pem`, `*.key`, `id_rsa`, `credentials.json`,
 * `.npmrc` … (the full list is `SECRET_FILE_PATTERNS`). The name decides, not the content.
 */
export function isSecretPath(path: string): boolean {
  const name = (path.split(/[\\/]/).pop() ?? '').toLowerCase();
  if (name === '') return false;
  if (SECRET_NAMES.has(name) || SECRET_EXTENSIONS.test(name) || CLIENT_SECRET.test(name)) return true;
  const env = ENV_VARIANT.exec(name);
  return env !== null && !ENV_TEMPLATES.has(env[1]!);
}

/**
 * The indexing-time predicate: `isSecretPath`, unless `indexing.index_secrets` is on or an
 * `indexing.secret_allow` pattern (gitignore syntax, repo-relative) names the file.
 */
export function secretFilter(config: Config['indexing']): (relPath: string) => boolean {
  if (config.index_secrets) return () => false;
  const allow = config.secret_allow.length > 0 ? ignore().add(config.secret_allow) : null;
  return (relPath) => isSecretPath(relPath) && !(allow?.ignores(relPath) ?? false);
}
