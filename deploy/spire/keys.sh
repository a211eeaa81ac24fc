#!/usr/bin/env bash
# One-shot (service authz-keys): the signing key file that both authz replicas read (--signing-keys).
# Made on the first run and kept after, so a restart does not invalidate the tokens in use; to rotate
# it, see README.md ("Key rotation").
set -euo pipefail

KEYS=/run/notegate/keys/signing-keys.json

notegate() { node /app/auth/bin/notegate.js "$@"; }

if [ -f "$KEYS" ]; then
  echo "keys: $KEYS exists; keeping it"
else
  generate=(notegate authz keygen --out "$KEYS")
  "${generate[@]}"
fi
