#!/usr/bin/env bash
# Several ledger nodes on one PostgreSQL on this machine (docs/benchmarks.md, section 7): the raw limits
# (pgbench's forced commits, Ed25519, fdatasync, H2), then for each node count and mode a new database,
# one state directory copied to every node, the nodes started with ZGC (or $JVM), and HttpLoadGenerator spreading
# its connections over them.
#
#   mvn -B -DskipTests install && ledger-app/src/test/bench/several-nodes.sh
#
# env: NODES="1 2 3"; MODES="closed affinity open500 open1000" (closed: sessions called from any
# connection; affinity: each connection calls only its own sessions; openR: open loop at R/s);
# WARMUP=30 DURATION=20; RAW=0 skips the raw limits; PGBIN (default /usr/lib/postgresql/15/bin);
# OUT (default ./several-nodes.txt) gets every result line too; JVM, each node's JVM options (default the
# README's: "-XX:+UseZGC -Xms2g -Xmx2g -XX:+AlwaysPreTouch -XX:InlineSmallCode=1000 -XX:FreqInlineSize=100";
# on a host that pages out idle memory, operations.md's "-XX:+UseG1GC -XX:+UseTransparentHugePages -Xms2g
# -Xmx2g -XX:+AlwaysPreTouch" with the same two JIT options).
set -uo pipefail
cd "$(dirname "$0")/../../../.."
PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
WARMUP=${WARMUP:-30}; DURATION=${DURATION:-20}
NODES=${NODES:-"1 2 3"}; MODES=${MODES:-"closed affinity open500 open1000"}
OUT=${OUT:-$PWD/several-nodes.txt}
JVM=${JVM:--XX:+UseZGC -Xms2g -Xmx2g -XX:+AlwaysPreTouch -XX:InlineSmallCode=1000 -XX:FreqInlineSize=100}
JAR=$(ls ledger-app/target/ledger-app-*.jar | grep -v original | head -1)
WORK=$(mktemp -d)
(cd ledger-app && mvn -B -q -o dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile="$WORK/cp.txt") \
  || { echo "build first: mvn -B -DskipTests install" >&2; exit 2; }
CP="$PWD/ledger-app/target/test-classes:$PWD/ledger-app/target/classes:$(cat "$WORK/cp.txt")"
log() { echo "$(date +%T) $*" | tee -a "$OUT"; }

# PostgreSQL refuses to run as root: then its commands run as the postgres system user.
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
[ "$(id -u)" = 0 ] && chown postgres "$WORK"
PGPORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
as_pg "$PGBIN/initdb" -D "$WORK/pg" -A trust -U ledger -E UTF8 --no-instructions >/dev/null
as_pg "$PGBIN/pg_ctl" -D "$WORK/pg" -l "$WORK/pg.log" -w \
  -o "-p $PGPORT -k $WORK -c listen_addresses=127.0.0.1" start >/dev/null
trap 'pkill -f "$JAR serve"; as_pg "$PGBIN/pg_ctl" -D "$WORK/pg" -m fast -w stop >/dev/null; rm -rf "$WORK"' EXIT
sql() { "$PGBIN/psql" -h 127.0.0.1 -p "$PGPORT" -U ledger -At "$@"; }
log "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); $(sql -d postgres -c 'select version()' | cut -c1-30)"
log "postgresql: fsync=$(sql -d postgres -c 'show fsync') synchronous_commit=$(sql -d postgres -c 'show synchronous_commit')" \
    "wal_sync_method=$(sql -d postgres -c 'show wal_sync_method') shared_buffers=$(sql -d postgres -c 'show shared_buffers')"

if [ "${RAW:-1}" = 1 ]; then
  sql -d postgres -qc "create database pgb"
  sql -d pgb -qc "create table r(id bigserial primary key, body text)"
  echo "insert into r(body) values (repeat('x', 700));" > "$WORK/insert.sql"
  for c in 1 16; do
    r=$("$PGBIN/pgbench" -h 127.0.0.1 -p "$PGPORT" -U ledger -n -f "$WORK/insert.sql" -c $c -j $((c > 1 ? 2 : 1)) \
        -T 10 pgb 2>&1 | grep -E "^tps|latency average" | tr '\n' ' ')
    log "pgbench, one 700-byte row per forced commit, $c client(s): $r"
  done
  java -cp "$CP" io.mcpledger.app.bench.ForcedWriteBenchmark "$WORK" 5 2>&1 | sed 's/^/  /' | tee -a "$OUT"
fi

for n in $NODES; do
  for mode in $MODES; do
    db=ledger_${n}_${mode}
    sql -d postgres -qc "create database $db"
    url="jdbc:postgresql://127.0.0.1:$PGPORT/$db?user=ledger"
    nodes="$WORK/nodes"; rm -rf "$nodes"; mkdir -p "$nodes"
    java -jar "$JAR" init --state "$nodes/1/state" >/dev/null
    for i in $(seq 2 "$n"); do cp -a "$nodes/1" "$nodes/$i"; done
    pids=(); args=()
    for i in $(seq 1 "$n"); do
      port=$((4400 + i))
      # shellcheck disable=SC2086 # JVM holds several options
      java $JVM -jar "$JAR" serve --state "$nodes/$i/state" --listen 127.0.0.1:$port \
        --policy docs/examples/pricing-policy.yaml --database "$url" > "$nodes/$i.log" 2>&1 &
      pids+=($!)
      if [ "$i" = 1 ]; then args+=(--url http://127.0.0.1:$port); else args+=(--also-url http://127.0.0.1:$port); fi
    done
    for i in $(seq 1 "$n"); do
      for _ in $(seq 1 120); do grep -q '^Ready' "$nodes/$i.log" && break; sleep 1; done
    done
    case $mode in
      affinity) args+=(--session-affinity);;
      open*) args+=(--rate "${mode#open}");;
    esac
    # One node: the generator reads its CPU, in all and by kind of thread.
    if [ "$n" = 1 ]; then args+=(--ledger-pid "${pids[0]}"); fi
    log "== $n node(s), $mode"
    java -cp "$CP" io.mcpledger.app.bench.HttpLoadGenerator "${args[@]}" --state "$nodes/1/state" \
      --warmup "$WARMUP" --duration "$DURATION" 2>&1 | grep -E "admissions/s|latency of|errors|check:|CPU" \
      | sed 's/^/  /' | tee -a "$OUT"
    for i in $(seq 1 "$n"); do
      log "  node $i: CPU $(ps -o times= -p "${pids[$i-1]}")s, $(grep -c 'WARN\|ERROR' "$nodes/$i.log") warnings"
      kill "${pids[$i-1]}"
    done
    wait
    log "  rows in the log: $(sql -d "$db" -c 'select count(*) from ledger_entry')"
  done
done
log done
