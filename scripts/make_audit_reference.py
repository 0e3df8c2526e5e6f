"""Write the audit references of tests/jobs/test_audit_identity.py (run from the repository root).

python scripts/make_audit_reference.py [MMLU_PRO_LONG_CSV_GZ]
"""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "jobs")]

from test_audit_identity import BOARDS, mmlu_pro  # noqa: E402

import evalgap  # noqa: E402

OUT = ROOT / "tests" / "fixtures" / "identity"


def write(name: str, scores, kwargs) -> None:
    result = evalgap.audit(scores, **kwargs).to_dict()
    text = json.dumps(result, sort_keys=True, allow_nan=True)
    # mtime=0: the same results give the same file
    with gzip.GzipFile(OUT / f"audit_{name}.json.gz", "wb", compresslevel=9, mtime=0) as f:
        f.write(text.encode("utf-8"))
    print(name, len(text))


for name, make in BOARDS.items():
    write(name, *make())
if len(sys.argv) > 1:
    write("mmlu_pro", *mmlu_pro(sys.argv[1]))
