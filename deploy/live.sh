#!/usr/bin/env bash
# A live shift: ingest keeps consuming, `python -m checks --follow` keeps replay and the flags
# up to date, the simulator deals at a pace, and the dashboard serves it all; a new flag shows
# on the Flags page seconds after its round was dealt. Ctrl-C stops everything.
# Usage (from the repository root, after `make setup`; `make live` runs it):
#   deploy/live.sh DATA TABLES ROUNDS PACE PORT ADDRESS
set -euo pipefail
data=${1:-var/live} tables=${2:-6} rounds=${3:-200} pace=${4:-40} port=${5:-8501} address=${6:-127.0.0.1}
python=${PYTHON:-.venv/bin/python}
kafka=(bash deploy/kafka/kafka.sh)
if [ -z "${KAFKA_BOOTSTRAP:-}" ]; then "${kafka[@]}" up; fi
rm -rf "$data" && mkdir -p "$data"
topic=live-$(date -u +%Y%m%dT%H%M%S)
pids=()
stop() {
  trap - EXIT INT TERM
  echo "live: stopping ingest, the follow loop and the simulator"
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap stop EXIT INT TERM
# The log key is made before ingest starts and pinned in a keyring outside the data directory,
# as a regulator pins it at commissioning (docs/log-integrity.md, "Keys").
keys="$data.trusted.keys"
"$python" deploy/pin_keys.py "$data" "$keys"
export CATWALK_TRUSTED_KEYS
CATWALK_TRUSTED_KEYS="$(cd "$(dirname "$keys")" && pwd)/$(basename "$keys")"
# The tables' layouts (docs/rulesets.md "Table layouts") are filed before the follow loop
# starts, since it reads the rulesets directory once: the simulator deals by them and replay
# judges the order around the table by them, as the demo does with --layouts-out.
rulesets="$data/rulesets"
"$python" -c 'import sys; from pathlib import Path; from ingest.simulate import layout_files, write_layout_files; write_layout_files(Path(sys.argv[1]), layout_files(tables=int(sys.argv[2])))' \
  "$rulesets" "$tables"
export CATWALK_RULESETS
CATWALK_RULESETS="$(cd "$rulesets" && pwd)"
"$python" -m ingest --data "$data" --topic "$topic" --quiet > "$data/ingest.out" 2>&1 & pids+=($!)
"$python" -m checks --data "$data" --follow --rulesets "$rulesets" > "$data/follow.out" 2>&1 & pids+=($!)
"$python" -m ingest.simulate --tables "$tables" --rounds "$rounds" --seed "$RANDOM" --fault-rate 0.03 \
  --labels "$data/labels.jsonl" --topic "$topic" --pace "$pace" --rulesets "$rulesets" \
  > "$data/simulate.out" 2>&1 & pids+=($!)
echo "live: dealing $tables tables x $rounds rounds at $pace events/s into topic $topic"
echo "live: logs in $data/{ingest,follow,simulate}.out (tail -f $data/follow.out shows each pass)"
PYTHON="$python" bash deploy/demo-users.sh "$data"
echo "dashboard: http://localhost:$port  (Ctrl-C to stop everything)"
CATWALK_DATA="$data" CATWALK_DASHBOARD_HOME="$(cd "$data" && pwd)/dashboard" \
  "$python" -m streamlit run dashboard/serve.py --server.headless=true --server.address="$address" \
  --server.port="$port" --browser.gatherUsageStats=false --client.toolbarMode=minimal
