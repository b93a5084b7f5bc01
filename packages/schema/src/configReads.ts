/**
 * The shape of a C# configuration read as the C# extractor records it (decision 048): a
 * `reads_config` edge whose target key says what is read, until the configuration linker points it
 * at the `config` nodes of the `appsettings*.json` files. The key keeps everything the linker
 * needs, so linking can be redone from the stored edges alone.
 *
 * - `config:value:A:B` — a value read (`configuration["A:B"]`, `GetValue<T>("A:B")`,
 *   `GetSection("A")["B"]`, `GetConnectionString("X")` → `ConnectionStrings:X`);
 * - `config:section:A` — a section read (`GetSection("A")` used as a whole);
 * - `config:bind:T=A` — type `T` bound to section `A` (`Configure<T>(….GetSection("A"))`,
 *   `AddOptions<T>().BindConfiguration("A")`, `GetSection("A").Get<T>()`);
 * - `config:options:T` — a use of `IOptions<T>` (`IOptionsSnapshot<T>`, `IOptionsMonitor<T>`),
 *   reaching the sections `T` is bound to;
 * - `config:computed:…` — a read whose key is not a constant: never linked, counted as unresolved.
 */

/** The prefix of a configuration read's target key. */
export const CONFIG_READ_KEY_PREFIX = 'config:';

/** What a configuration read reads. */
export type ConfigReadKind = 'value' | 'section' | 'bind' | 'options' | 'computed';

/** A configuration read, parsed from its key. */
export interface ConfigRead {
  readonly kind: ConfigReadKind;
  /** The configuration path (`A:B`) for value, section and bind reads; the expression for computed ones. */
  readonly path: string;
  /** The bound or injected type's simple name (bind, options). */
  readonly type: string | null;
}

/** `config:value:A:B` … : the target key of a `reads_config` edge (see the module comment). */
export function configReadKey(kind: ConfigReadKind, path: string, type: string | null = null): string {
  if (kind === 'bind') return `${CONFIG_READ_KEY_PREFIX}bind:${type ?? ''}=${path}`;
  if (kind === 'options') return `${CONFIG_READ_KEY_PREFIX}options:${type ?? ''}`;
  return `${CONFIG_READ_KEY_PREFIX}${kind}:${path}`;
}

/** The inverse of {@link configReadKey}; null when `key` is not a configuration read's key. */
export function parseConfigReadKey(key: string): ConfigRead | null {
  const m = /^config:(value|section|bind|options|computed):([\s\S]*)$/.exec(key);
  if (!m) return null;
  const kind = m[1] as ConfigReadKind;
  const rest = m[2]!;
  if (kind === 'bind') {
    const eq = rest.indexOf('=');
    return eq <= 0 ? null : { kind, path: rest.slice(eq + 1), type: rest.slice(0, eq) };
  }
  if (kind === 'options') return rest === '' ? null : { kind, path: '', type: rest };
  return { kind, path: rest, type: null };
}
