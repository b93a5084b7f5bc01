import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { MAX_CONFIG_DEPTH, MAX_NODES_PER_FILE, parseDocFile } from '../src/index.js';

const FIXTURE = fileURLToPath(new URL('../../../fixtures/docs-config/', import.meta.url));
const read = (path: string) => readFileSync(FIXTURE + path, 'utf8');

/** kind, qualified name, parent, lines and bytes of each node after the file node. */
function rows(path: string, text = read(path)) {
  const index = parseDocFile({ path, text });
  const byId = new Map(index.nodes.map((n) => [n.localId, n.qualifiedName]));
  return {
    index,
    rows: index.nodes.slice(1).map((n) => [n.kind, n.qualifiedName, byId.get(n.parentLocalId!), n.span.startLine, n.span.endLine, n.span.startByte, n.span.endByte]),
    slice: (qualifiedName: string) => {
      const n = index.nodes.find((x) => x.qualifiedName === qualifiedName)!;
      return Buffer.from(text).subarray(n.span.startByte, n.span.endByte).toString('utf8');
    },
  };
}

describe('Markdown sections', () => {
  it('splits README.md by heading, nested by level, spans to the next heading of the same or a higher level', () => {
    const { index, rows: r, slice } = rows('README.md');
    // Lines: 1 "Intro line.", 3 "# Guide", 4 "Welcome text — ünïcode.", 6 "## Install", 9-12 a ```sh fence
    // holding "# not a heading" (line 10, not a heading), 14 "## Usage", 17 "### Flags", 18 "--fast",
    // 20 "# Appendix", 21 "End.". Bytes: "Intro line.\n\n" is 13; line 4 is 23 characters, 28 bytes
    // (— is 3 bytes, ü and ï 2 each), so "## Install" starts at 13 + 8 ("# Guide\n") + 29 (line 4
    // and its newline) = 50; "# Appendix" at 151 (the whole file is 167 bytes, "# Appendix\nEnd.\n" 16).
    expect(r).toEqual([
      ['doc', 'Guide', 'README.md', 3, 18, 13, 149],
      ['doc', 'Guide > Install', 'Guide', 6, 12, 50, 112],
      ['doc', 'Guide > Usage', 'Guide', 14, 18, 114, 149],
      ['doc', 'Guide > Usage > Flags', 'Guide > Usage', 17, 18, 133, 149],
      ['doc', 'Appendix', 'README.md', 20, 21, 151, 166],
    ]);
    // A span ends at the last non-blank character before the next heading; the fence stays in Install.
    expect(slice('Guide > Install')).toBe('## Install\nRun the installer.\n\n```sh\n# not a heading\nnpm i\n```');
    expect(slice('Guide > Usage > Flags')).toBe('### Flags\n--fast');
    // A section's chunk is its own text up to its first subsection; the file's is the preamble.
    expect(index.nodes.find((n) => n.qualifiedName === 'Guide')!.chunkText).toBe('# Guide\nWelcome text — ünïcode.');
    expect(index.nodes[0]!.chunkText).toBe('Intro line.');
    expect(index.nodes.find((n) => n.name === 'Flags')!.symbolKey).toBe('markdown:file:README.md#Guide.Usage.Flags');
    expect(index.parseStatus).toBe('ok');
  });

  it('reads setext headings and ignores # lines in an unclosed fence', () => {
    const text = 'Title\n=====\n\nBody\n\nPart\n----\ntext\n\n~~~\n# inside\n';
    const { rows: r } = rows('x.md', text);
    // "Title\n=====\n\nBody\n\n" is 6+6+1+5+1 = 19 bytes: "Part" starts at 19; the fence (line 10)
    // never closes. The text is 48 bytes; the final newline is not part of a span: both end at 47.
    expect(r).toEqual([
      ['doc', 'Title', 'x.md', 1, 11, 0, 47],
      ['doc', 'Title > Part', 'Title', 6, 11, 19, 47],
    ]);
  });
});

describe('JSON keys', () => {
  it('splits appsettings.json down to its leaf keys, spans = the values, names joined by :', () => {
    const { rows: r, slice, index } = rows('src/Shop/appsettings.json');
    expect(r).toEqual([
      ['config', 'Logging', 'src/Shop/appsettings.json', 3, 8, 84, 185],
      ['config', 'Logging:LogLevel', 'Logging', 4, 7, 102, 181],
      // Line 4 `    "LogLevel": {` starts at 86 (its { at 102), so line 5 starts at 104: 6 spaces and
      // `"Default": ` put "Information" at 121..134; line 5 is 31 characters, line 6 starts at 136
      // and its 6 spaces and `"Microsoft.AspNetCore": ` put "Warning" at 166..175.
      ['config', 'Logging:LogLevel:Default', 'Logging:LogLevel', 5, 5, 121, 134],
      ['config', 'Logging:LogLevel:Microsoft.AspNetCore', 'Logging:LogLevel', 6, 6, 166, 175],
      ['config', 'ConnectionStrings', 'src/Shop/appsettings.json', 9, 9, 210, 251],
      ['config', 'ConnectionStrings:Orders', 'ConnectionStrings', 9, 9, 222, 249],
      ['config', 'Payment', 'src/Shop/appsettings.json', 10, 13, 266, 315],
      ['config', 'Payment:Provider', 'Payment', 11, 11, 284, 292],
      ['config', 'Payment:Retries', 'Payment', 12, 12, 309, 310],
      ['config', 'AllowedHosts', 'src/Shop/appsettings.json', 14, 14, 335, 338],
    ]);
    // The comment line and the trailing comma after `"Retries": 3` are tolerated.
    expect(slice('Payment')).toBe('{\n    "Provider": "stripe",\n    "Retries": 3,\n  }');
    expect(slice('Payment:Provider')).toBe('"stripe"');
    expect(index.nodes.find((n) => n.qualifiedName === 'Payment:Provider')!.chunkText).toBe('Payment:Provider: "stripe"');
    // A connection string is a secret: its value is in no chunk (the key's own nor its section's).
    expect(index.nodes.find((n) => n.qualifiedName === 'ConnectionStrings:Orders')!.chunkText).toBe('ConnectionStrings:Orders: [redacted]');
    expect(index.nodes.find((n) => n.qualifiedName === 'ConnectionStrings')!.chunkText).toBe('ConnectionStrings: [redacted]');
    expect(index.nodes.some((n) => n.chunkText.includes('Server=db'))).toBe(false);
    expect(index.parseStatus).toBe('ok');
  });

  it('never stores the value of a secret-looking key, at any depth, in appsettings and other JSON and YAML', () => {
    const json = '{"Jwt": {"Issuer": "shop", "Key": "s3cr3t-jwt"}, "Smtp": {"Host": "mail", "Password": "hunter2", "Port": 25}}';
    const settings = parseDocFile({ path: 'appsettings.Production.json', text: json });
    // Jwt, Jwt:Issuer, Jwt:Key, Smtp, Smtp:Host, Smtp:Password, Smtp:Port (+ the file node).
    expect(settings.nodes.map((n) => n.chunkText)).toEqual([
      'Jwt\nSmtp',
      'Jwt: {"Issuer": "shop", "Key": "[redacted]"}',
      'Jwt:Issuer: "shop"',
      'Jwt:Key: [redacted]',
      'Smtp: {"Host": "mail", "Password": "[redacted]", "Port": 25}',
      'Smtp:Host: "mail"',
      'Smtp:Password: [redacted]',
      'Smtp:Port: 25',
    ]);
    // Another JSON file keeps its top level only; the nested secret is still replaced.
    expect(parseDocFile({ path: 'config/app.json', text: json }).nodes.map((n) => n.chunkText)).toEqual([
      'Jwt\nSmtp',
      'Jwt: {"Issuer": "shop", "Key": "[redacted]"}',
      'Smtp: {"Host": "mail", "Password": "[redacted]", "Port": 25}',
    ]);
    const yaml = parseDocFile({ path: 'deploy/db.yaml', text: 'db:\n  host: pg\n  password: hunter2\napi_token: abc\n' });
    expect(yaml.nodes.slice(1).map((n) => n.chunkText)).toEqual(['db: host: pg\n  password: [redacted]', 'api_token: [redacted]']);
    for (const idx of [settings, yaml]) expect(idx.nodes.some((n) => /hunter2|s3cr3t|abc/.test(n.chunkText))).toBe(false);
  });

  it('keeps an appsettings key deeper than MAX_CONFIG_DEPTH in its ancestor node', () => {
    // 20 nested objects: a0 … a15 are nodes (16 levels), the deeper ones only text of a15's value.
    let text = '1';
    for (let i = 19; i >= 0; i--) text = `{"a${i}": ${text}}`;
    const index = parseDocFile({ path: 'appsettings.json', text });
    expect(index.nodes.length - 1).toBe(MAX_CONFIG_DEPTH);
    expect(index.nodes[MAX_CONFIG_DEPTH]!.qualifiedName).toBe(Array.from({ length: MAX_CONFIG_DEPTH }, (_, i) => `a${i}`).join(':'));
  });

  it('keeps other JSON files to their top-level keys', () => {
    const { rows: r } = rows('package.json', '{"name": "x", "scripts": {"build": "tsup"}}');
    expect(r).toEqual([
      ['config', 'name', 'package.json', 1, 1, 9, 12],
      ['config', 'scripts', 'package.json', 1, 1, 25, 42],
    ]);
  });

  it('keeps the keys before a fault and names its line', () => {
    const { rows: r, index } = rows('deploy/broken.json');
    // `"b": [1, 2` never closes its array: the `}` on line 4 is where the reader stops.
    expect(r).toEqual([['config', 'a', 'deploy/broken.json', 2, 2, 9, 10]]);
    expect(index.parseStatus).toBe('partial');
    expect(index.diagnostics).toEqual([{ severity: 'error', code: 'malformed_json', message: 'malformed JSON at line 4: expected ], found }', line: 4 }]);
  });

  it('is an error without any key, and a top-level array has none', () => {
    expect(parseDocFile({ path: 'a.json', text: '{ "a" 1 }' }).diagnostics[0]!.message).toBe('malformed JSON at line 1: expected : after "a", found "1"');
    expect(parseDocFile({ path: 'a.json', text: '{ "a" 1 }' }).parseStatus).toBe('error');
    const list = parseDocFile({ path: 'a.json', text: '[1, {"a": 2}]' });
    expect([list.parseStatus, list.nodes.length]).toEqual(['ok', 1]);
  });

  it('stops splitting past MAX_NODES_PER_FILE keys and says so', () => {
    const text = `{${Array.from({ length: MAX_NODES_PER_FILE + 3 }, (_, i) => `"k${i}": ${i}`).join(',')}}`;
    const index = parseDocFile({ path: 'big.json', text });
    expect(index.nodes.length).toBe(MAX_NODES_PER_FILE + 1);
    expect(index.parseStatus).toBe('partial');
    expect(index.diagnostics.map((d) => d.code)).toEqual(['too_many_keys']);
  });

  it('reads a 10,000-deep nesting without overflowing the stack', () => {
    const text = `{"deep": ${'['.repeat(10_000)}${']'.repeat(10_000)}}`;
    const index = parseDocFile({ path: 'deep.json', text });
    expect([index.parseStatus, index.nodes[1]!.span.endByte]).toEqual(['ok', 9 + 20_000]);
  });
});

describe('YAML keys', () => {
  it('splits top-level keys of every document by indentation; spans = the values', () => {
    const { rows: r, slice, index } = rows('deploy/service.yaml');
    // Line 1 is a comment (31 bytes to "shop": "# deployment of the shop\n" 25 + "name: " 6).
    expect(r).toEqual([
      ['config', 'name', 'deploy/service.yaml', 2, 2, 31, 35],
      ['config', 'replicas', 'deploy/service.yaml', 3, 3, 46, 47],
      ['config', 'env', 'deploy/service.yaml', 5, 6, 55, 107],
      ['config', 'quoted key', 'deploy/service.yaml', 7, 7, 122, 125],
      ['config', 'kind', 'deploy/service.yaml', 9, 9, 148, 155],
      ['config', 'ports', 'deploy/service.yaml', 11, 11, 163, 167],
    ]);
    expect(slice('env')).toBe('- name: ASPNETCORE_ENVIRONMENT\n    value: Production');
    // The comment after `yes` is not part of the value.
    expect(slice('quoted key')).toBe('yes');
    expect(index.parseStatus).toBe('ok');
  });

  it('keeps the keys before a line that is no key and names it', () => {
    const { rows: r, index } = rows('deploy/broken.yaml');
    expect(r).toEqual([
      ['config', 'name', 'deploy/broken.yaml', 1, 1, 6, 12],
      ['config', 'ok', 'deploy/broken.yaml', 2, 2, 17, 18],
    ]);
    expect(index.parseStatus).toBe('partial');
    expect(index.diagnostics[0]!.message).toBe('malformed YAML at line 3: expected "key:" at column 1, found "this line has no colon"');
  });

  it('refuses tab indentation', () => {
    const index = parseDocFile({ path: 'a.yml', text: 'a:\n\tb: 1\n' });
    expect([index.parseStatus, index.diagnostics[0]!.message]).toEqual(['partial', 'malformed YAML at line 2: a tab in indentation (YAML indents with spaces)']);
  });
});
