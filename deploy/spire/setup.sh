#!/usr/bin/env bash
# One-shot bootstrap of the SPIRE deployment (service spire-setup); safe to run again.
#  1. Export the server's CA bundle for the agent (its trust_bundle_path).
#  2. Generate a join token and render the agent's config with it (node attestation).
#  3. Register the workloads, each bound to a container label (docker workload attestor).
set -euo pipefail

SOCKET=/run/spire/server/private/api.sock
OUT=/run/spire/bootstrap
NODE_ID=spiffe://example.org/node/compose
LABEL=org.notegate.workload

server() { spire-server "$@" -socketPath "$SOCKET"; }

until server healthcheck >/dev/null 2>&1; do sleep 1; done

server bundle show >"$OUT/bundle.pem.new"
mv "$OUT/bundle.pem.new" "$OUT/bundle.pem"

# A join token is good for one attestation and 10 minutes; each `docker compose up` makes a new one.
# Its entry gives the agent the alias NODE_ID, the parent of every workload entry below.
token=$(server token generate -spiffeID "$NODE_ID" -ttl 600 | sed -n 's/^Token: //p')
if [ -z "$token" ]; then
  echo "setup: spire-server token generate printed no token" >&2
  exit 1
fi
umask 077
awk -v token="$token" '{ print } /^agent \{$/ { print "    join_token = \"" token "\"" }' /deploy/agent.conf \
  >"$OUT/agent.conf.new"
mv "$OUT/agent.conf.new" "$OUT/agent.conf"
echo "setup: agent config rendered with a new join token"

# register <SPIFFE ID> <label value>: the workload in the container labelled org.notegate.workload=<value>.
# JWT-SVIDs for 300 s, the largest lifetime authz accepts. No -jwtSVIDIncludeJTI: the SPIRE agent
# caches JWT-SVIDs, so authz runs --svid-replay allow-reuse-within-lifetime (see README.md).
register() {
  local id=$1 selector="docker:label:$LABEL:$2"
  if server entry show -spiffeID "$id" -selector "$selector" | grep -q 'Entry ID'; then
    echo "setup: $id already registered ($selector)"
  else
    server entry create -parentID "$NODE_ID" -spiffeID "$id" -selector "$selector" -jwtSVIDTTL 300 >/dev/null
    echo "setup: registered $id ($selector)"
  fi
}

register spiffe://example.org/authz authz
register spiffe://example.org/agent agent
register spiffe://example.org/reader reader
