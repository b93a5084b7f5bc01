import { splitTopLevel, type DeclaredTypeSyntax, type LanguageSupport, type ModuleResolution } from '@ca/schema';
import { classifyTsPath, createTsAdapter, TS_EXTENSIONS } from './adapter.js';
import { createSfcAdapter, SFC_EXTENSIONS, sfcLanguageOf } from './sfc.js';

/** Extensions tried, in order, when a module path names a file without its extension. */
const MODULE_EXTENSIONS = ['.ts', '.tsx', '.d.ts', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs'];
const HAS_EXTENSION = /\.[a-z]+$/i;
/** `./x.js` in TS source names `./x.ts` (NodeNext style): the script extension comes off. */
const SCRIPT_EXTENSION = /\.(m|c)?jsx?$/;
const PARAMETER_MODIFIERS = /^(?:(?:readonly|private|public|protected|override|declare)\s+)+/;

/**
 * TS/JS module resolution over the label's paths: a path with an extension as written first,
 * then each source extension appended, then the NodeNext `.js` → `.ts` spelling, then the
 * directory's `index` file; a path without an extension last as written.
 */
export const tsModuleResolution: ModuleResolution = {
  candidates(modulePath) {
    const out = MODULE_EXTENSIONS.map((ext) => modulePath + ext);
    const stripped = modulePath.replace(SCRIPT_EXTENSION, '');
    if (stripped !== modulePath) out.push(...MODULE_EXTENSIONS.map((ext) => stripped + ext));
    out.push(...MODULE_EXTENSIONS.map((ext) => `${modulePath}/index${ext}`));
    return HAS_EXTENSION.test(modulePath) ? [modulePath, ...out] : [...out, modulePath];
  },
};

/** TS/JS declared types: `a: T = x`, `{ a }: Props`, `...rest: T[]`; a property's `name?: T = x`. */
export const tsDeclaredTypes: DeclaredTypeSyntax = {
  parameterType(param) {
    const p = param.trim().replace(PARAMETER_MODIFIERS, '').replace(/^\.\.\./, '');
    const parts = splitTopLevel(p, ':');
    if (parts.length < 2) return null;
    const type = splitTopLevel(parts.slice(1).join(':'), '=')[0]!.trim();
    return type === '' ? null : type;
  },
  valueType(name, signature) {
    const at = name === '' ? -1 : signature.indexOf(name);
    const rest = at >= 0 ? signature.slice(at + name.length) : signature;
    const m = /^\??!?\s*:/.exec(rest);
    if (!m) return null;
    const type = splitTopLevel(rest.slice(m[0].length), '=')[0]!.trim();
    return type === '' ? null : type;
  },
};

/** TypeScript and JavaScript (`ts`, `js`): the tree-sitter adapter, module resolution and declared types. */
export const typescriptLanguage: LanguageSupport = {
  id: 'typescript',
  languages: ['ts', 'js'],
  extensions: TS_EXTENSIONS,
  languageOf: (path) => classifyTsPath(path)?.language ?? null,
  createAdapter: () => createTsAdapter(),
  worker: { module: '@ca/parse-ts', export: 'typescriptLanguage' },
  moduleResolution: tsModuleResolution,
  declaredTypes: tsDeclaredTypes,
  exportAliases: true,
};

/**
 * Vue and Svelte single-file components (`vue`, `svelte`): their `<script>` blocks with the TS/JS
 * grammar, spans in the component's own lines and bytes. No semantic pass (the TS compiler does
 * not read `.vue` files); imports resolve like TypeScript's.
 */
export const sfcLanguage: LanguageSupport = {
  id: 'sfc',
  languages: ['vue', 'svelte'],
  extensions: SFC_EXTENSIONS,
  languageOf: sfcLanguageOf,
  createAdapter: () => createSfcAdapter(),
  worker: { module: '@ca/parse-ts', export: 'sfcLanguage' },
  moduleResolution: tsModuleResolution,
  declaredTypes: tsDeclaredTypes,
  exportAliases: true,
};
