"""Check that a release tag names this tree's version, and write the release notes.

    python .github/scripts/release_check.py vX.Y.Z [--notes FILE]

A release tag is ``v`` followed by the ``version`` of pyproject.toml (``v0.1.0`` for 0.1.0), so
the Action at a tag runs the evalgap of the same version. CHANGELOG.md must have a section
``## [X.Y.Z]`` (a date may follow); its text is written to ``--notes`` for the release page.
Exit code 0 when the tag is a release of this tree, 1 with one line on stderr saying why not.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[2]
TAG = re.compile(r"v(\d+)\.(\d+)\.(\d+)")


def check(tag: str, root: Path = ROOT) -> str:
    """Return the changelog section of release ``tag``; raise ValueError saying what is wrong."""
    if not TAG.fullmatch(tag):
        raise ValueError(f"tag {tag!r} is not a release tag vX.Y.Z (e.g. v1.2.0)")
    version = tomllib.loads((root / "pyproject.toml").read_text())["project"]["version"]
    if tag != f"v{version}":
        raise ValueError(
            f"tag {tag} does not match the package version {version} in pyproject.toml; "
            f'set version = "{tag[1:]}" there, or tag v{version}'
        )
    lines = (root / "CHANGELOG.md").read_text().splitlines()
    heading = re.compile(rf"## \[{re.escape(version)}\](\s.*)?")
    start = next((i for i, line in enumerate(lines) if heading.fullmatch(line)), None)
    if start is None:
        raise ValueError(f"CHANGELOG.md has no section '## [{version}]'; rename [Unreleased] to it")
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    notes = "\n".join(lines[start + 1 : end]).strip()
    if not notes:
        raise ValueError(f"CHANGELOG.md's section '## [{version}]' is empty")
    return notes + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tag", help="the pushed tag, e.g. v1.2.0")
    parser.add_argument("--notes", type=Path, help="write the changelog section here")
    args = parser.parse_args(argv)
    try:
        notes = check(args.tag)
    except ValueError as error:
        print(f"release_check: {error}", file=sys.stderr)
        return 1
    if args.notes:
        args.notes.write_text(notes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
