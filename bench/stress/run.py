"""Run the adversarial suite's long variants (tests/adversarial with FILEWRIGHT_STRESS=1).

    uv run python bench/stress/run.py               # everything (about an hour, ~3 GB of disk)
    uv run python bench/stress/run.py fuzz crash    # only some parts
    uv run python bench/stress/run.py resources -- -x   # extra pytest arguments after --

Parts and what the flag changes (CI size → stress size):

    fuzz         hypothesis examples per tool and pass: 25 → 1500
    paths        path attacks (the same cases; run for completeness)
    crash        SIGKILLs per CLI operation: 20 → 200; MCP server kills: 4 → 30
    concurrency  rounds per worker: 8 → 40; optimistic-lock rounds: 3 → 20; lock-timeout "busy" check
    resources    text file: 200 MB → 2 GB (real lines); directory: 20,000 → 200,000 entries
    display      confirmation display (the same cases)
    http         the HTTP transport refuses foreign Origin/Host (the same case)
    races        symlink-swap loops against walks and the state directory: 40 → 400 calls
    budgets      capped-address-space search, edit and reader cases (the same cases;
                 bench/stress/budgets.py runs them at full size with peak RSS and time)
    policy       one verdict per file on every way out; hidden answers like missing

Every part asserts the same invariants as in CI; only the sizes grow. A failing hypothesis
example is printed with its `@reproduce_failure` blob.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PARTS = {
    "fuzz": "tests/adversarial/test_fuzz_tools.py",
    "paths": "tests/adversarial/test_path_attacks_all_toolsets.py",
    "crash": "tests/adversarial/test_crash_consistency.py",
    "concurrency": "tests/adversarial/test_concurrency.py",
    "resources": "tests/adversarial/test_resource_limits.py",
    "display": "tests/adversarial/test_confirmation_display.py",
    "http": "tests/adversarial/test_http_surface.py",
    "races": "tests/adversarial/test_walk_races.py",
    "budgets": "tests/adversarial/test_resource_budgets.py",
    "policy": "tests/adversarial/test_policy_outputs.py",
}


def main(argv: list[str]) -> int:
    extra: list[str] = []
    if "--" in argv:
        extra = argv[argv.index("--") + 1 :]
        argv = argv[: argv.index("--")]
    unknown = [a for a in argv if a not in PARTS]
    if unknown:
        print(
            f"unknown part(s): {', '.join(unknown)}; choose from {', '.join(PARTS)}",
            file=sys.stderr,
        )
        return 2
    targets = [PARTS[a] for a in argv] or list(PARTS.values())
    env = {**os.environ, "FILEWRIGHT_STRESS": "1"}
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "no:cacheprovider",
        "-o",
        "timeout=0",
        "-s",
        "--durations=20",
        *targets,
        *extra,
    ]
    print("FILEWRIGHT_STRESS=1", " ".join(command[2:]), flush=True)
    return subprocess.call(command, cwd=REPO, env=env)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
