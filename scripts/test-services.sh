#!/usr/bin/env bash
# Sourced by run-tests.sh. Exports TEST_DATABASE_URL and TEST_REDIS_URL.
# Uses the PostgreSQL and Redis that normally run on 127.0.0.1; when one does not answer (or
# WEBCAP_TEST_PRIVATE_SERVICES=1), installs it with apt and starts a private instance on a free
# port in a temp dir, so that the tests that need them never skip.

private_dir=""

free_port() {
  node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

pg_answers() {
  node -e '
    const pg = require("pg");
    const c = new pg.Client({ connectionString: process.argv[1], connectionTimeoutMillis: 3000 });
    c.connect().then(() => c.query("select 1")).then(() => process.exit(0), () => process.exit(1));
  ' "$1" 2>/dev/null
}

redis_answers() {
  node -e '
    const s = require("net").connect(Number(process.argv[1]), "127.0.0.1");
    s.setTimeout(3000, () => process.exit(1));
    s.on("error", () => process.exit(1));
    s.on("data", (d) => process.exit(String(d).startsWith("+PONG") ? 0 : 1));
    s.write("PING\r\n");
  ' "$1" 2>/dev/null
}

ensure_private_dir() {
  [ -n "$private_dir" ] || private_dir=$(mktemp -d /tmp/webcap-services.XXXXXX)
  chmod 755 "$private_dir"
}

stop_private_services() {
  [ -n "$private_dir" ] || return 0
  [ -f "$private_dir/redis.pid" ] && kill "$(cat "$private_dir/redis.pid")" 2>/dev/null
  if [ -d "$private_dir/pg" ]; then
    runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$private_dir/pg" -m fast stop >/dev/null 2>&1 || true
  fi
  rm -rf "$private_dir"
}

start_private_postgres() {
  ensure_private_dir
  if ! ls -d /usr/lib/postgresql/*/bin >/dev/null 2>&1; then
    echo "webcap: installing PostgreSQL for the tests"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql >/dev/null
  fi
  PG_BIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
  local port
  port=$(free_port)
  mkdir -p "$private_dir/pg"
  chown postgres "$private_dir/pg"
  runuser -u postgres -- "$PG_BIN/initdb" -D "$private_dir/pg" -A trust -U postgres >/dev/null
    # The data dir belongs to postgres, so its log and socket go there too.
  runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$private_dir/pg" -l "$private_dir/pg/server.log" -w \
    -o "-p $port -k $private_dir/pg -c listen_addresses=127.0.0.1" start >/dev/null
  runuser -u postgres -- "$PG_BIN/createdb" -h 127.0.0.1 -p "$port" -U postgres test
  export TEST_DATABASE_URL="postgres://postgres@127.0.0.1:$port/test"
  echo "webcap: started a private PostgreSQL on port $port"
}

start_private_redis() {
  ensure_private_dir
  if ! command -v redis-server >/dev/null; then
    echo "webcap: installing Redis for the tests"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends redis-server >/dev/null
  fi
  local port
  port=$(free_port)
  redis-server --daemonize yes --bind 127.0.0.1 --port "$port" --save "" --appendonly no \
    --dir "$private_dir" --pidfile "$private_dir/redis.pid" --logfile "$private_dir/redis.log"
  for _ in $(seq 50); do redis_answers "$port" && break; sleep 0.1; done
  export TEST_REDIS_URL="redis://127.0.0.1:$port"
  echo "webcap: started a private Redis on port $port"
}

force="${WEBCAP_TEST_PRIVATE_SERVICES:-0}"
export TEST_DATABASE_URL="${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test}"
export TEST_REDIS_URL="${TEST_REDIS_URL:-redis://127.0.0.1:6379}"
if [ "$force" = 1 ] || ! pg_answers "$TEST_DATABASE_URL"; then start_private_postgres; fi
if [ "$force" = 1 ] || ! redis_answers "${TEST_REDIS_URL##*:}"; then start_private_redis; fi
