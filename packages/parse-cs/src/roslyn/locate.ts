import { accessSync, constants, existsSync, readdirSync, statSync } from 'node:fs';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** File name of the built host assembly. */
export const HOST_DLL_NAME = 'CodeAgent.RoslynHost.dll';

/** Overrides the host dll location (absolute path to CodeAgent.RoslynHost.dll). */
export const HOST_DLL_ENV = 'CA_ROSLYN_HOST_DLL';

export interface LocateOptions {
  /** Explicit path to the built host dll (wins over the environment and the repo layout). */
  readonly hostDllPath?: string;
  /** Explicit `dotnet` executable. */
  readonly dotnetPath?: string;
}

export interface RoslynHostLocation {
  /** The roslyn-host/ project directory found above this package, if any. */
  readonly projectDir: string | null;
  /** The built dll, or null when it does not exist yet. */
  readonly dllPath: string | null;
  /** Where the dll is expected (for messages). */
  readonly expectedDllPath: string | null;
}

/** Finds `roslyn-host/` by walking up from this module (works from src/ and from dist/). */
function findProjectDir(): string | null {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'roslyn-host', 'RoslynHost.csproj');
    if (existsSync(candidate)) return join(dir, 'roslyn-host');
    const parent = dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

/** Locates the host: an explicit path, then $CA_ROSLYN_HOST_DLL, then roslyn-host/bin/Release/<tfm>/. */
export function locateRoslynHost(options: LocateOptions = {}): RoslynHostLocation {
  const explicit = options.hostDllPath ?? process.env[HOST_DLL_ENV];
  const projectDir = findProjectDir();
  if (explicit) {
    const p = resolve(explicit);
    return { projectDir, dllPath: existsSync(p) ? p : null, expectedDllPath: p };
  }
  if (!projectDir) return { projectDir: null, dllPath: null, expectedDllPath: null };
  const release = join(projectDir, 'bin', 'Release');
  const expected = join(release, 'net10.0', HOST_DLL_NAME);
  if (existsSync(release)) {
    // Newest target framework folder first (net10.0 before net9.0).
    const tfms = readdirSync(release)
      .filter((d) => /^net\d/.test(d))
      .sort((a, b) => b.localeCompare(a, 'en', { numeric: true }));
    for (const tfm of tfms) {
      const dll = join(release, tfm, HOST_DLL_NAME);
      if (existsSync(dll)) return { projectDir, dllPath: dll, expectedDllPath: dll };
    }
  }
  return { projectDir, dllPath: null, expectedDllPath: expected };
}

function isExecutable(p: string): boolean {
  try {
    if (!statSync(p).isFile()) return false;
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    // A missing or non-executable candidate is not the host; the next candidate is tried.
    return false;
  }
}

/** The `dotnet` executable: explicit, then $DOTNET_ROOT/dotnet, then PATH. Null when absent. */
export function findDotnet(options: LocateOptions = {}): string | null {
  if (options.dotnetPath) return isExecutable(options.dotnetPath) ? options.dotnetPath : null;
  const exe = process.platform === 'win32' ? 'dotnet.exe' : 'dotnet';
  const root = process.env['DOTNET_ROOT'];
  if (root && isExecutable(join(root, exe))) return join(root, exe);
  for (const dir of (process.env['PATH'] ?? '').split(delimiter)) {
    if (dir && isExecutable(join(dir, exe))) return join(dir, exe);
  }
  return null;
}

/** Whether the semantic C# pass can run here; `reason` says exactly why not. */
export type RoslynAvailability = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/**
 * Checks that `dotnet` is installed and the host is built. Cheap (file-system checks only); it does not
 * spawn the host — a host that fails its handshake is reported by `RoslynHost.start()`.
 */
export function isRoslynAvailable(options: LocateOptions = {}): RoslynAvailability {
  const dotnet = findDotnet(options);
  if (!dotnet) {
    return {
      ok: false,
      reason: options.dotnetPath
        ? `dotnet not found at ${options.dotnetPath}: C# stays syntactic-only`
        : 'dotnet (the .NET SDK) is not installed or not on PATH: C# stays syntactic-only',
    };
  }
  const location = locateRoslynHost(options);
  if (!location.dllPath) {
    if (!location.expectedDllPath) {
      return { ok: false, reason: `roslyn-host not found: no roslyn-host/ directory above this package and ${HOST_DLL_ENV} is not set` };
    }
    return {
      ok: false,
      reason: `roslyn-host is not built: ${location.expectedDllPath} is missing (run \`dotnet build -c Release roslyn-host\`)`,
    };
  }
  return { ok: true };
}
