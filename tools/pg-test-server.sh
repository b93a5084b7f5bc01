#!/usr/bin/env bash
# Starts a throwaway PostgreSQL cluster for the team store's tests and prints shell assignments:
#   CA_TEST_PG_URL     read-write role `ca_rw` on database `ca_test` (owner; may create databases)
#   CA_TEST_PG_RO_URL  read-only role `ca_ro` on the same database
#   CA_TEST_PG_DIR     the cluster's directory (stop: tools/pg-test-server.sh stop "$CA_TEST_PG_DIR")
# Usage: eval "$(bash tools/pg-test-server.sh)". The cluster lives in a temp directory, listens on
# 127.0.0.1 on a free port with password (SCRAM) authentication, and is initialised as the
# `postgres` user (the server refuses root). `ca_template` (pgvector created, read access granted
# to `ca_ro` by default) is the template tests copy into a fresh database each.
set -euo pipefail

PG_MAJOR="${PG_MAJOR:-15}"
PG_BIN="/usr/lib/postgresql/${PG_MAJOR}/bin"

as_postgres() {
  if [ "$(id -un)" = "postgres" ]; then "$@"; else runuser -u postgres -- "$@"; fi
}

if [ "${1:-}" = "stop" ]; then
  dir="${2:?usage: pg-test-server.sh stop DIR}"
  as_postgres "${PG_BIN}/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$dir"
  exit 0
fi

[ -x "${PG_BIN}/postgres" ] || { echo "pg-test-server: PostgreSQL ${PG_MAJOR} missing: run tools/install-postgres.sh" >&2; exit 1; }

dir="$(mktemp -d /tmp/ca-pg.XXXXXX)"
chown postgres "$dir" 2>/dev/null || true
chmod 700 "$dir"
port="$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close();})')"
pwfile="$dir/pw"
superpw="$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')"
echo "$superpw" > "$pwfile"
chown postgres "$pwfile" 2>/dev/null || true

as_postgres "${PG_BIN}/initdb" -D "$dir/data" -U postgres --pwfile="$pwfile" \
  --auth-local=peer --auth-host=scram-sha-256 -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1
as_postgres "${PG_BIN}/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
  -o "-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=100" start >/dev/null

# The superuser over the cluster's Unix socket (peer authentication as the postgres user).
psql_admin() { as_postgres psql -h "$dir" -p "$port" -U postgres -v ON_ERROR_STOP=1 -qAt "$@"; }

psql_admin -d postgres <<'SQL'
CREATE ROLE ca_rw LOGIN CREATEDB PASSWORD 'ca_rw';
CREATE ROLE ca_ro LOGIN PASSWORD 'ca_ro';
CREATE DATABASE ca_template OWNER ca_rw;
SQL
psql_admin -d ca_template <<'SQL'
CREATE EXTENSION IF NOT EXISTS vector;
ALTER DEFAULT PRIVILEGES FOR ROLE ca_rw IN SCHEMA public GRANT SELECT ON TABLES TO ca_ro;
GRANT USAGE ON SCHEMA public TO ca_ro;
SQL
psql_admin -d postgres <<'SQL'
CREATE DATABASE ca_test OWNER ca_rw TEMPLATE ca_template;
GRANT CONNECT ON DATABASE ca_test TO ca_ro;
SQL

echo "export CA_TEST_PG_URL='postgres://ca_rw:ca_rw@127.0.0.1:${port}/ca_test'"
echo "export CA_TEST_PG_RO_URL='postgres://ca_ro:ca_ro@127.0.0.1:${port}/ca_test'"
echo "export CA_TEST_PG_DIR='${dir}'"
