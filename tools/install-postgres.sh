#!/usr/bin/env bash
# Installs what the team store's tests need on a Debian bookworm machine: the PostgreSQL 15
# server, its development headers and pgvector. pgvector is not a bookworm package, so it is
# built from Debian trixie's source package against postgresql-server-dev-15, with a private apt
# configuration (its own sources list, lists and cache directories) so the machine's apt state
# is left untouched. Safe to re-run: each step is skipped when its result is already there.
set -euo pipefail

PG_MAJOR="${PG_MAJOR:-15}"
PG_BIN="/usr/lib/postgresql/${PG_MAJOR}/bin"
if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi

apt_install() {
  $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$@"
}

if [ ! -x "${PG_BIN}/postgres" ]; then
  echo "install-postgres: installing postgresql-${PG_MAJOR}" >&2
  apt_install "postgresql-${PG_MAJOR}"
fi

if [ ! -x "${PG_BIN}/pg_config" ] || [ ! -d "/usr/include/postgresql/${PG_MAJOR}/server" ]; then
  echo "install-postgres: installing postgresql-server-dev-${PG_MAJOR}" >&2
  apt_install "postgresql-server-dev-${PG_MAJOR}" build-essential
fi

SHAREDIR="$("${PG_BIN}/pg_config" --sharedir)"
if [ -f "${SHAREDIR}/extension/vector.control" ]; then
  echo "install-postgres: pgvector already installed (${SHAREDIR}/extension/vector.control)" >&2
  exit 0
fi

echo "install-postgres: building pgvector from Debian trixie's source package" >&2
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# The mirror the machine already uses (first URIs line of the Debian sources), trixie suite.
mirror="$(awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)"
mirror="${mirror:-http://deb.debian.org/debian}"
mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/src"
echo "deb-src [trusted=yes] ${mirror} trixie main" > "$work/sources.list"
APT_OPTS=(
  -o "Dir::Etc::SourceList=$work/sources.list"
  -o "Dir::Etc::SourceParts=-"
  -o "Dir::State::Lists=$work/lists"
  -o "Dir::Cache=$work/cache"
  -o "APT::Sandbox::User=root"
)
apt-get "${APT_OPTS[@]}" update -qq
(cd "$work/src" && apt-get "${APT_OPTS[@]}" source --download-only pgvector >/dev/null)
dsc="$(ls "$work"/src/pgvector_*.dsc | head -n 1)"
(cd "$work/src" && dpkg-source --no-check -x "$dsc" pgvector >/dev/null)
export PG_CONFIG="${PG_BIN}/pg_config"
make -C "$work/src/pgvector" with_llvm=no OPTFLAGS="" >/dev/null
$SUDO make -C "$work/src/pgvector" with_llvm=no OPTFLAGS="" install >/dev/null
echo "install-postgres: pgvector installed (${SHAREDIR}/extension/vector.control)" >&2
