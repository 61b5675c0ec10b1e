#!/bin/bash
# Builds a v1 state holding every kind of receipt with the v1 jar (version 1's ledger-app jar, built from the commit
# before the storage rewrite of issue 11), and the digest and bundle v1 gives for it; V1StateUpgradeTest reads them.
# Usage, from this directory: V1_JAR=/path/to/ledger-app-v1.jar ./make-v1-state.sh   (needs curl, jq, sha256sum)
set -e
cd "$(dirname "$0")"
POLICY="$(cd ../../../../.. && pwd)/docs/examples/pricing-policy.yaml"
rm -rf state bundle
java -jar "$V1_JAR" serve --state state --listen 127.0.0.1:4399 --policy "$POLICY" --session-idle-expiry 3s > serve.log 2>&1 &
PID=$!
for i in $(seq 1 60); do curl -sf 127.0.0.1:4399/health >/dev/null && break; sleep 0.5; done
L=127.0.0.1:4399
EDGE="Authorization: Bearer $(cat state/credentials/edge.token)"
OP="Authorization: Bearer $(cat state/credentials/operator.token)"
T1=$(printf %s tok-1 | sha256sum | cut -c1-64); T2=$(printf %s tok-2 | sha256sum | cut -c1-64); T3=$(printf %s tok-3 | sha256sum | cut -c1-64)
A=$(printf %s '{"sku":"A"}' | sha256sum | cut -c1-64)
init() { curl -s -X POST $L/v1/sessions -H "$EDGE" -H "Client-Token-Sha256: $1" -d "{\"principal\":\"$2\",\"serverId\":\"pricing\",\"protocolVersion\":\"2025-06-18\",\"edge\":{\"id\":\"e1\",\"incarnation\":\"i1\"},\"clientInfo\":{\"name\":\"c\",\"version\":\"1\"}}" | jq -r .session.id; }
call() { curl -s -X POST $L/v1/sessions/$1/calls -H "$EDGE" -H "Client-Token-Sha256: $2" -d "{\"requestId\":\"$3\",\"server\":\"pricing\",\"tool\":\"$4\",\"operation\":\"invoke\",\"argumentsSha256\":\"$A\",\"jsonrpcId\":\"j-$3\"}" | jq -c '{decision,r:.receipt.id}'; }
out() { curl -s -X POST $L/v1/sessions/$1/calls/$3/outcome -H "$EDGE" -H "Client-Token-Sha256: $2" -d "{\"status\":\"$4\"}" | jq -c '.receipt.kind'; }
S1=$(init $T1 alice); S2=$(init $T2 bob); S3=$(init $T3 carol)
call $S1 $T1 r1 quote; out $S1 $T1 r1 ok
call $S1 $T1 r2 refund   # refused not_in_scope
call $S1 $T1 r3 discount; out $S1 $T1 r3 error
call $S1 $T1 r4 quote    # left pending
curl -s -X POST $L/v1/sessions/$S1/resume -H "$EDGE" -H "Client-Token-Sha256: $T1" -d '{"edge":{"id":"e1","incarnation":"i2"}}' | jq -c .receipt.kind
curl -s -X POST $L/v1/sessions/$S1/calls/r4/resolution -H "$OP" -d '{"status":"not_run","note":"checked the tool"}' | jq -c .receipt.kind
call $S2 $T2 r1 quote
curl -s -X POST $L/v1/sessions/$S2/revoke -H "$OP" | jq -c .receipt.kind
call $S2 $T2 r2 quote    # refused capability_revoked
curl -s -X PUT $L/v1/policy -H "$OP" -d '{"capabilities":{"default":{"tools":[{"server":"pricing","tool":"discount","operations":["invoke"],"ttl":600}]}}}' | jq -c .receipt.kind
call $S1 $T1 r5 quote    # refused: narrowed
curl -s -X POST $L/v1/principals/revoke -H "$OP" -d "{\"tokenSha256\":\"$T3\"}" | jq -c .receipt.kind
call $S3 $T3 r1 discount # 403 token_revoked with call.refused
curl -s -X DELETE $L/v1/sessions/$S2 -H "$EDGE" -H "Client-Token-Sha256: $T2" | jq -c .receipt.kind
for i in $(seq 1 20); do S=$(init $(printf %s x$i | sha256sum | cut -c1-64) user$i); call $S $(printf %s x$i | sha256sum | cut -c1-64) q1 discount >/dev/null; done
sleep 4
curl -s -X POST $L/v1/sessions/$S1/resume -H "$EDGE" -H "Client-Token-Sha256: $T1" | jq -c .error.code  # 410 + session.expired
sleep 2
curl -s $L/v1/projections/digest -H "$OP" > digest.json
cat digest.json
kill $PID; wait $PID || true
java -jar "$V1_JAR" export --state state --out bundle
rm -f serve.log
