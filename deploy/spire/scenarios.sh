#!/usr/bin/env bash
# The four scenarios against the SPIRE deployment, run inside workload containers: the SPIRE agent
# tells who is calling by the container's label, so each identity needs a container of its own.
#   scenarios.sh reader  scenario 2 as spiffe://example.org/reader (service reader; runs first and
#                        leaves its report in the results volume)
#   scenarios.sh agent   scenarios 1, 3 and 4 as spiffe://example.org/agent (service agent), with the
#                        reader's report in its place; exit 0 only when all four behaved as expected
# The Workload API address comes from SPIFFE_ENDPOINT_SOCKET (compose.yaml).
set -uo pipefail

ISSUER=http://authz:8080
NOTES_A=http://notes-a:8081/mcp
NOTES_B=http://notes-b:8082/mcp
NOTES_C=http://notes-c:8083/mcp
UNTRUSTED_COUNT=http://untrusted-issuer:9001/requests
AUDIT=/var/log/notegate
RESULTS=/run/notegate/results
NOTE='{"title":"Signing key rotation drill","body":"Written from the agent container: rotate the signing keys every quarter."}'
SEARCH='{"query":"rotate the signing keys","top":5}'

notegate() { node /app/auth/bin/notegate.js "$@"; }

FAILED=0

# check <label> <command…>: PASS when the command succeeds.
check() {
  local label=$1
  shift
  if "$@"; then echo "  PASS  $label"; else echo "  FAIL  $label" && FAILED=1; fi
}

# run <array name>: prints and runs the command in that array; sets CODE, OUT and ERR.
run() {
  local -n cmd=$1
  local word
  printf '  $'
  for word in "${cmd[@]}"; do
    if [[ $word =~ ^[A-Za-z0-9_/:.,=@%+-]+$ ]]; then printf ' %s' "$word"; else printf " '%s'" "${word//\'/\'\\\'\'}"; fi
  done
  printf '\n'
  OUT=$("${cmd[@]}" 2>/tmp/stderr)
  CODE=$?
  ERR=$(cat /tmp/stderr)
  echo "    exit $CODE${ERR:+: $ERR}"
}

# The audit files' sizes now; audit_since prints every line appended after them, in time order.
mark() { MARK=$(for file in "$AUDIT"/*.log; do echo "$file $(stat -c %s "$file")"; done); }
audit_since() {
  for file in "$AUDIT"/*.log; do
    local size
    size=$(awk -v f="$file" '$1 == f { print $2 }' <<<"$MARK")
    tail -c +"$((${size:-0} + 1))" "$file"
  done | sort
}
audit_has() { audit_since | grep "$1" | grep -q "$2"; }

header() {
  echo
  echo "━━ $1 ━━"
  echo "Expected: $2"
}

# The workload's registration entry reaches the SPIRE agent within seconds of setup, and authz needs
# its first JWT bundle: until both are there, a token request fails. Wait for one to succeed.
ready=(notegate agent --resource "$NOTES_A" --trusted-issuer "$ISSUER" --scope notes:read)
wait_until_ready() {
  for _ in $(seq 60); do
    "${ready[@]}" >/dev/null 2>&1 && return 0
    sleep 2
  done
  echo "the deployment did not become ready (no token after 120 s)" >&2
  exit 1
}

scenario_allowed() {
  header "1/4 Allowed" "the agent (notes:read notes:write on notes-a) writes a note, then searches notes-a's vaults: grounded hits from the handbook and the note just written."
  mark
  write=(notegate agent --resource "$NOTES_A" --trusted-issuer "$ISSUER" --tool notes.write --arguments "$NOTE" --audit-log "$AUDIT/agent.log")
  run write
  local path
  path=$(grep -o '"path":"[^"]*"' <<<"$OUT" | head -n 1)
  check "notes.write succeeded and created the note" test "$CODE" = 0 -a -n "$path"
  search=(notegate agent --resource "$NOTES_A" --trusted-issuer "$ISSUER" --tool notes.search --arguments "$SEARCH" --audit-log "$AUDIT/agent.log")
  run search
  echo "$OUT" | grep -o '"text":"[^"]*"' | head -n 1 | sed 's/\\n/\n/g'
  check "notes.search found the handbook's engineering/key-rotation.md" grep -q '"path":"engineering/key-rotation.md"' <<<"$OUT"
  check "notes.search found the note just written" grep -qF "${path:-no path}" <<<"$OUT"
  echo "Audit lines:"
  audit_since
}

scenario_insufficient_scope() {
  header "2/4 Insufficient scope" "the reader (notes:read only) does not see notes.write; calling it anyway gets 403 insufficient_scope."
  mark
  list=(notegate agent --resource "$NOTES_A" --trusted-issuer "$ISSUER" --scope notes:read --audit-log "$AUDIT/reader.log")
  run list
  check "tools/list shows notes.search and not notes.write" \
    bash -c '[[ $1 == *"\"name\":\"notes.search\""* && $1 != *"\"name\":\"notes.write\""* ]]' _ "$OUT"
  write_read_only=(notegate agent --resource "$NOTES_A" --trusted-issuer "$ISSUER" --scope notes:read --tool notes.write --arguments "$NOTE" --audit-log "$AUDIT/reader.log")
  run write_read_only
  check "notes.write refused: HTTP 403 insufficient_scope (exit 3)" \
    bash -c '[[ $1 == 3 && $2 == *"insufficient_scope: HTTP 403"* ]]' _ "$CODE" "$ERR"
  check "notes-a audited the refusal" audit_has '"component":"mcp_server:notes-a"' '"decision":"deny".*insufficient_scope'
  echo "Audit lines:"
  audit_since
}

scenario_stolen_token() {
  header "3/4 Stolen token" "the token minted for notes-a, replayed against notes-b, gets 401 invalid_token (audience)."
  mark
  steal=(notegate agent --resource "$NOTES_A" --trusted-issuer "$ISSUER" --tool notes.search --arguments "$SEARCH" --steal-token "$NOTES_B" --audit-log "$AUDIT/agent.log")
  run steal
  local report
  report=$(sed -n 2p <<<"$OUT")
  echo "    notes-b: $report"
  check "notes-b refused the replayed token: 401 invalid_token" \
    bash -c '[[ $1 == 0 && $2 == *"\"status\":401"* && $2 == *"\"error\":\"invalid_token\""* ]]' _ "$CODE" "$report"
  check "notes-b's deny line names the audience" audit_has '"component":"mcp_server:notes-b"' 'invalid_token.*aud'
  echo "Audit lines:"
  audit_since
}

scenario_untrusted_issuer() {
  header "4/4 Untrusted issuer" "notes-c advertises an issuer not on the allowlist: issuer_refused, and no request reaches it."
  mark
  untrusted=(notegate agent --resource "$NOTES_C" --trusted-issuer "$ISSUER" --tool notes.search --arguments "$SEARCH" --audit-log "$AUDIT/agent.log")
  run untrusted
  local count
  count=$(curl -fsS "$UNTRUSTED_COUNT" | grep -o '"count":[0-9]*')
  echo "    untrusted issuer: $count"
  check "refused with issuer_refused (exit 3)" \
    bash -c '[[ $1 == 3 && $2 == *"issuer_selection: issuer_refused"* ]]' _ "$CODE" "$ERR"
  check "no request reached the untrusted issuer" test "$count" = '"count":0'
  # issuer_selection is step 2, the SVID step 4: a refusal there fetches no SVID. npm run demo counts
  # the SVIDs its identity provider mints to prove it; SPIRE has no such count to read here.
  check "the agent audited the refusal" audit_has '"component":"agent"' '"decision":"deny".*issuer_refused'
  echo "Audit lines:"
  audit_since
}

case "${1:-}" in
  reader)
    wait_until_ready
    scenario_insufficient_scope | tee "$RESULTS/scenario-2.txt"
    grep -q '^  FAIL' "$RESULTS/scenario-2.txt" && echo 1 >"$RESULTS/scenario-2.failed" || rm -f "$RESULTS/scenario-2.failed"
    exit 0
    ;;
  agent)
    wait_until_ready
    scenario_allowed
    echo
    echo "(scenario 2 ran first, in the reader container; its report:)"
    cat "$RESULTS/scenario-2.txt"
    [ -e "$RESULTS/scenario-2.failed" ] && FAILED=1
    scenario_stolen_token
    scenario_untrusted_issuer
    echo
    if [ "$FAILED" = 0 ]; then echo "All four scenarios behaved as expected."; else echo "Some checks FAILED."; fi
    exit "$FAILED"
    ;;
  *)
    echo "usage: scenarios.sh reader|agent" >&2
    exit 2
    ;;
esac
