#!/usr/bin/env bash
# One dashboard user per role (analyst, dispute, regulator, admin) for a demo data directory,
# with passwords made now by `python -m dashboard users add` and printed once: only their
# scrypt hashes are kept (DATA/dashboard/users.jsonl). Usage: deploy/demo-users.sh DATA
set -euo pipefail
data=${1:?usage: deploy/demo-users.sh DATA}
python=${PYTHON:-.venv/bin/python}
echo
echo "dashboard users of this demo, one per role (passwords made now and shown once;"
echo "only their scrypt hashes are kept, in $data/dashboard/users.jsonl):"
printf '  %-10s %-10s %s\n' user role password
for role in analyst dispute regulator admin; do
  pw=$("$python" -m dashboard users add "$role" --role "$role" --quiet --data "$data" --home "$data/dashboard")
  printf '  %-10s %-10s %s\n' "$role" "$role" "$pw"
done
echo
