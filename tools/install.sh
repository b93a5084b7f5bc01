#!/usr/bin/env bash
# Installs and builds everything on a fresh machine: pnpm, the workspace dependencies
# (better-sqlite3 compiles from source), the TypeScript packages and, when the .NET SDK is
# present, roslyn-host; then puts `ca` on PATH (a link to the repo-root launcher in
# $CA_BIN_DIR, default ~/.local/bin; CA_BIN_DIR=none skips it). Safe to re-run. The launcher
# (./ca) runs this on first use and when pnpm-lock.yaml is newer than the last install.
set -euo pipefail
cd "$(dirname "$0")/.."

PNPM_VERSION=10.34.9
if ! command -v pnpm >/dev/null 2>&1; then
  echo "install: pnpm not found, installing pnpm@${PNPM_VERSION}" >&2
  # npm first: corepack may enable its shim and then fail to verify the download (seen on
  # this machine: "No compatible signature found"), leaving a /usr/bin/pnpm that cannot run.
  if ! npm install -g "pnpm@${PNPM_VERSION}"; then
    corepack disable pnpm >/dev/null 2>&1 || true
    if ! npm install -g --force "pnpm@${PNPM_VERSION}"; then
      corepack enable && corepack prepare "pnpm@${PNPM_VERSION}" --activate
    fi
  fi
fi

# better-sqlite3 has no reachable prebuilt binary here: node-gyp builds it against the
# installed Node headers, which it only finds through nodedir.
if [ -f /usr/include/node/node.h ]; then
  export npm_config_nodedir=/usr
fi

pnpm install --frozen-lockfile
pnpm build

if [ -f roslyn-host/RoslynHost.csproj ]; then
  if command -v dotnet >/dev/null 2>&1; then
    # ReadyToRun images start the host faster; their crossgen pack comes from NuGet. If it
    # cannot be had, build plain IL (same behaviour, slower start).
    dotnet build -c Release roslyn-host -nologo -v quiet ||
      dotnet build -c Release roslyn-host -nologo -v quiet -p:CaReadyToRun=false
  else
    echo "install: dotnet not found: C# stays syntactic-only (ca status says so)" >&2
  fi
fi

# The launcher skips the install while this is newer than pnpm-lock.yaml.
touch node_modules/.ca-installed

bin_dir="${CA_BIN_DIR:-$HOME/.local/bin}"
if [ "$bin_dir" != "none" ]; then
  mkdir -p "$bin_dir"
  ln -sfn "$PWD/ca" "$bin_dir/ca"
  echo "install: linked $bin_dir/ca -> $PWD/ca" >&2
  case ":$PATH:" in
    *":$bin_dir:"*) ;;
    *) echo "install: $bin_dir is not on PATH; add it with:  export PATH=\"$bin_dir:\$PATH\"" >&2 ;;
  esac
fi
