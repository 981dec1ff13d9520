#!/bin/sh
# The official image's first-start contract, in short: an empty data directory is initialised with
# POSTGRES_USER (default postgres) as superuser, POSTGRES_PASSWORD required for connections over the
# network (scram-sha-256), and POSTGRES_DB (default: the user's name) created; then PostgreSQL runs
# in the foreground listening on every interface.
set -eu
: "${POSTGRES_USER:=postgres}"
: "${POSTGRES_DB:=$POSTGRES_USER}"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  if [ -z "${POSTGRES_PASSWORD:-}" ]; then
    echo "postgres: POSTGRES_PASSWORD must be set" >&2
    exit 1
  fi
  pwfile=$(mktemp)
  printf '%s\n' "$POSTGRES_PASSWORD" >"$pwfile"
  initdb --username="$POSTGRES_USER" --pwfile="$pwfile" --auth-local=trust --auth-host=scram-sha-256 \
    --encoding=UTF8 >/dev/null
  rm -f "$pwfile"
  echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
  if [ "$POSTGRES_DB" != postgres ]; then
    echo "CREATE DATABASE \"$POSTGRES_DB\" OWNER \"$POSTGRES_USER\";" |
      postgres --single -D "$PGDATA" -j postgres >/dev/null
  fi
  echo "postgres: initialised $PGDATA with database $POSTGRES_DB"
fi
if [ "${1:-}" = postgres ]; then
  shift
  exec postgres -c listen_addresses='*' "$@"
fi
exec "$@"
