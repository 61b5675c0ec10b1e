#!/usr/bin/env bash
# Saturated admissions measured from outside with wrk (docs/benchmarks.md, section 8): the packaged jar on a fresh
# H2 state (ZGC), SESSIONS sessions of one client initialized with curl, then wrk posting calls round robin over them
# from CONNS connections, every requestId new: WARMUP seconds of warm-up (discarded), then DURATION seconds measured.
# The ledger's own receipt count before and after the measured run says how many admissions were stored (each one
# signed and forced to disk before its answer), its metrics how many of them were admissions and refusals, and
# /proc the ledger's CPU per receipt; wrk gives the rate and latencies it saw. With CALL=sessionless nothing
# is initialized: wrk posts the sessionless call (POST /v1/calls, MCP 2026-07-28) round robin over SESSIONS clients,
# each with a client token of its own.
#
#   mvn -B -DskipTests package && ledger-app/src/test/bench/wrk-admissions.sh
#   CALL=sessionless ledger-app/src/test/bench/wrk-admissions.sh
#
# needs wrk, curl and jq; env: SESSIONS=200 CONNS=64 THREADS=2 WARMUP=60 DURATION=60 CALL=session
#      JAR=ledger-app/target/ledger-app-0.1.0-SNAPSHOT.jar (another build's, to compare two)
#      LEDGER_DATABASE=jdbc:postgresql://HOST:PORT/DB?user=U (the ledger on that PostgreSQL database instead of H2)
#      JVM="-XX:+UseZGC -Xms2g -Xmx2g -XX:+AlwaysPreTouch -XX:InlineSmallCode=1000 -XX:FreqInlineSize=100" (the README's)
set -euo pipefail
cd "$(dirname "$0")/../../../.."
SESSIONS=${SESSIONS:-200}; CONNS=${CONNS:-64}; THREADS=${THREADS:-2}; CALL=${CALL:-session}
WARMUP=${WARMUP:-60}; DURATION=${DURATION:-60}; JVM=${JVM:--XX:+UseZGC -Xms2g -Xmx2g -XX:+AlwaysPreTouch -XX:InlineSmallCode=1000 -XX:FreqInlineSize=100}
JAR=${JAR:-ledger-app/target/ledger-app-0.1.0-SNAPSHOT.jar}
SCRIPT=ledger-app/src/test/bench/wrk-admissions.lua
for tool in wrk curl jq; do command -v "$tool" >/dev/null || { echo "needs $tool" >&2; exit 2; }; done
[ -f "$JAR" ] || { echo "build first: mvn -B -DskipTests package" >&2; exit 2; }
WORK=$(mktemp -d)
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
L=127.0.0.1:$PORT
# shellcheck disable=SC2086
java $JVM -jar "$JAR" serve --state "$WORK/state" --listen "$L" --policy docs/examples/pricing-policy.yaml \
  >"$WORK/ledger.log" 2>&1 &
LEDGER=$!
trap 'kill $LEDGER 2>/dev/null; wait $LEDGER 2>/dev/null; rm -rf "$WORK"' EXIT
until grep -q '^Ready' "$WORK/ledger.log"; do
  kill -0 $LEDGER 2>/dev/null || { cat "$WORK/ledger.log" >&2; exit 1; }
  sleep 0.2
done
EDGE=$(cat "$WORK/state/credentials/edge.token")
CLIENT=$(printf %s 'the-wrk-clients-token' | sha256sum | cut -c1-64)
case "$CALL" in
  session)
    for _ in $(seq "$SESSIONS"); do
      curl -sf -X POST "$L/v1/sessions" -H "Authorization: Bearer $EDGE" -H "Client-Token-Sha256: $CLIENT" \
        -d '{"principal":"alice","serverId":"pricing","protocolVersion":"2025-06-18"}' | jq -r .session.id
    done >"$WORK/sessions.txt"
    THIRD=$CLIENT; WHO=sessions;;
  sessionless)
    RUN=wrk-$(date +%s)
    for i in $(seq "$SESSIONS"); do printf %s "$RUN-client-$i" | sha256sum | cut -c1-64; done >"$WORK/sessions.txt"
    THIRD=$RUN; WHO=clients;;
  *) echo "CALL is session or sessionless" >&2; exit 2;;
esac
AUDITOR=$(cat "$WORK/state/credentials/auditor.token")
receipts() { curl -sf "$L/health" | jq .receipts; }
# admissions and refusals so far, from the ledger's metrics
decided() {
  curl -sf "$L/metrics" -H "Authorization: Bearer $AUDITOR" \
    | awk '/^ledger_admissions_total/ {a += $2} /^ledger_refusals_total/ {r += $2} END {printf "%d %d\n", a, r}'
}
# the ledger's CPU so far, user and system, in clock ticks
ticks() { awk '{print $14 + $15}' "/proc/$LEDGER/stat"; }
echo "$(date +%T) machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); $SESSIONS $WHO ($CALL call), $CONNS connections, $THREADS threads, ledger JVM $JVM"
wrk -t"$THREADS" -c"$CONNS" -d"${WARMUP}s" -s "$SCRIPT" "http://$L" -- "$WORK/sessions.txt" "$EDGE" "$THIRD" warm \
  "$CALL" | grep -E 'Requests/sec|Non-2xx' | sed 's/^/warm-up: /'
before=$(receipts); read -r admitted refused <<<"$(decided)"; cpu=$(ticks)
wrk -t"$THREADS" -c"$CONNS" -d"${DURATION}s" --latency -s "$SCRIPT" "http://$L" -- "$WORK/sessions.txt" "$EDGE" \
  "$THIRD" measure "$CALL"
after=$(receipts); cpu=$(($(ticks) - cpu)); read -r admitted2 refused2 <<<"$(decided)"
echo "stored by the ledger during the measured run: $((after - before)) receipts, $(((after - before) / DURATION))/s;" \
  "$((admitted2 - admitted)) admissions, $((refused2 - refused)) refusals"
echo "the ledger's CPU during the measured run: $((cpu * 1000000 / $(getconf CLK_TCK) / (after - before))) us per receipt," \
  "$((cpu * 100 / $(getconf CLK_TCK) / DURATION))% of one core"
echo "$(date +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
