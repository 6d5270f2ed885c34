"""Pin a demo's keys as a regulator pins them at commissioning: make (when missing) the
three keys of a data directory (the log's, ingest/keys.py; the outputs', replay/outputs.py;
the dashboard journals', dashboard/anchor.py) and write a keyring OUTSIDE the data directory
naming each with its role (schemas/keyring.py, docs/log-integrity.md "Keys").

Usage: python deploy/pin_keys.py DATA KEYRING"""

from __future__ import annotations

import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    data, ring = Path(argv[0]), Path(argv[1])
    if ring.resolve().is_relative_to(data.resolve()):
        print(f"pin_keys: {ring} is inside {data}: a keyring kept in the directory under audit "
              "proves nothing", file=sys.stderr)
        return 2
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run as a script
    from dashboard.anchor import signer_for
    from ingest.keys import load_signer
    from replay.outputs import output_signer

    log = load_signer(data).verifier.vkey
    outputs = output_signer(data, who="demo").verifier.vkey
    journal = signer_for(data / "dashboard").verifier.vkey
    ring.write_text(f"# the trusted keys of {data}, kept outside it (CATWALK_TRUSTED_KEYS)\n"
                    f"{log} role=log\n{outputs} role=outputs\n{journal} role=journal\n",
                    encoding="ascii")
    print(f"pinned the log, outputs and journal keys of {data} in {ring} "
          "(CATWALK_TRUSTED_KEYS, outside the data directory; docs/log-integrity.md, Keys)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
