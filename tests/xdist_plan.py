"""How the suite's tests are shared out between pytest-xdist workers.

xdist's `worksteal` hands each worker an equal *count* of tests in collection order, then
lets idle workers steal from the end of the longest queue. The suite's cost is not spread
by count: a few modules (crash tests that kill children, the tool fuzzer, mypy, real MCP
servers and hosts) cost most of the CPU, and whichever worker got them last decided when
the run ended. `plan` hands out whole modules instead, heaviest first, each to the worker
with the least work so far (a module's shared fixtures, such as a server, then start once),
and puts each worker's heaviest modules first, so stealing at the end moves only cheap
tests.

Modules that import the same heavy library inside their tests (the provider SDKs:
anthropic alone costs ~1.4 s of CPU to import into a warm worker, openai ~0.6 s,
google-genai ~0.4 s) go to one worker together (`SHARED_IMPORTS`), so that the import is
paid once per run rather than once per worker.

`MODULE_COST` is CPU seconds per module, measured with a rusage plugin on a full run; a
module missing from it counts `DEFAULT_TEST_COST` per test. The numbers only decide the
order: a stale one makes a run a little less even, never wrong.
"""

from __future__ import annotations

from collections import defaultdict

from xdist.scheduler import WorkStealingScheduling

DEFAULT_TEST_COST = 0.02

# CPU seconds (test process, its waited-for children and the children it forked from
# tests/forkserver.py), measured on a full run of a fresh clone, 2026-11-27 22:23 UTC.
MODULE_COST: dict[str, float] = {
    "tests/test_doc_blocks.py": 41.5,
    "tests/adversarial/test_fuzz_tools.py": 26.9,
    "tests/test_policy_fast.py": 14.2,
    "tests/test_types.py": 14.2,
    "tests/adversarial/test_crash_consistency.py": 11.2,
    "tests/test_crash_large.py": 11.1,
    "tests/test_server_process.py": 10.6,
    "tests/test_on_disk.py": 9.0,
    "tests/test_paths_equivalence.py": 8.8,
    "tests/adversarial/test_resource_limits.py": 8.5,
    "tests/test_hosts.py": 7.6,
    "tests/test_cli_progress.py": 7.2,
    "tests/test_search.py": 6.5,
    "tests/test_textfile.py": 5.0,
    "tests/test_large_files.py": 4.6,
    "tests/test_arguments.py": 4.4,
    "tests/test_fileops_crash.py": 4.2,
    "tests/adversarial/test_resource_budgets.py": 4.1,
    "tests/test_server.py": 3.5,
    "tests/test_stream_parity.py": 3.4,
    "tests/test_dispatch.py": 3.4,
    "tests/test_crash.py": 3.2,
    "tests/adversarial/test_path_attacks_all_toolsets.py": 3.2,
    "tests/test_diffs_direct.py": 3.2,
    "tests/adversarial/test_concurrency.py": 3.1,
    "tests/test_textread.py": 2.7,
    "tests/test_call_budgets.py": 2.7,
    "tests/test_cli_completion.py": 2.6,
    "tests/test_cli_fixes.py": 2.6,
    "tests/test_readme.py": 2.5,
    "tests/test_server_inline.py": 2.5,
    "tests/test_server_http.py": 2.5,
    "tests/test_pipeline.py": 2.3,
    "tests/adversarial/test_walk_races.py": 2.0,
    "tests/test_syscalls.py": 2.0,
    "tests/test_cli_fastpath.py": 2.0,
    "tests/test_read_fastpaths.py": 1.9,
    "tests/test_readonly.py": 1.9,
    "tests/test_patch_differential.py": 1.8,
    "tests/test_carry_property.py": 1.7,
    "tests/test_layers.py": 1.6,
    "tests/test_server_malformed.py": 1.5,
    "tests/test_readers.py": 1.5,
    "tests/test_hint_bounds.py": 1.5,
    "tests/test_function_imports.py": 1.5,
    "tests/test_only_way.py": 1.4,
    "tests/test_mcpfs_official.py": 1.4,
    "tests/test_policy.py": 1.3,
    "tests/test_read_only.py": 1.2,
    "tests/test_memory_tool.py": 1.2,
    "tests/test_paths.py": 1.2,
    "tests/test_fileops.py": 1.1,
    "tests/test_old_edges.py": 1.1,
    "tests/test_apply_patch_crash.py": 1.1,
    "tests/test_confirm_pty.py": 1.0,
}


# Modules whose tests import the provider SDKs (anthropic, openai, google-genai): planned
# as one unit. A module imported at the top of a test module is paid by every worker at
# collection anyway, so only imports made inside tests belong here.
SHARED_IMPORTS: tuple[frozenset[str], ...] = (
    frozenset(
        {
            "tests/test_apply_patch_dispatch.py",
            "tests/test_apply_patch_docs.py",
            "tests/test_dispatch.py",
            "tests/test_memory_tool.py",
            "tests/test_model_blocks.py",
            "tests/test_schemas.py",
            "tests/test_strict_schemas.py",
            "tests/test_text_editor.py",
        }
    ),
)


def module_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def plan(nodeids: list[str], workers: int) -> list[list[int]]:
    """Indices into `nodeids` for each of `workers` workers: whole units (a module, or the
    modules of one `SHARED_IMPORTS` group), heaviest first, each to the least loaded
    worker; a worker's modules heaviest first, each in collection order."""
    modules: dict[str, list[int]] = defaultdict(list)
    for i, nodeid in enumerate(nodeids):
        modules[module_of(nodeid)].append(i)

    def cost(module: str) -> float:
        return MODULE_COST.get(module, DEFAULT_TEST_COST * len(modules[module]))

    units: dict[str, list[str]] = defaultdict(list)  # a unit's name: its first module
    for module in modules:
        group = next((g for g in SHARED_IMPORTS if module in g), frozenset())
        units[min(group & modules.keys(), default=module)].append(module)
    loads = [0.0] * workers
    shares: list[list[str]] = [[] for _ in range(workers)]
    for unit in sorted(units, key=lambda u: (-sum(map(cost, units[u])), u)):
        w = min(range(workers), key=lambda k: (loads[k], k))
        loads[w] += sum(map(cost, units[unit]))
        shares[w].extend(units[unit])
    ordered = [sorted(share, key=lambda m: (-cost(m), m)) for share in shares]
    return [[i for module in share for i in modules[module]] for share in ordered]


class PlannedWorkStealing(WorkStealingScheduling):
    """`worksteal` whose first hand-out follows `plan`; stealing works as before."""

    def schedule(self) -> None:
        if self.collection is not None or not self.collection_is_completed:
            super().schedule()
            return
        if not self._check_nodes_have_same_collection():
            self.log("**Different tests collected, aborting run**")
            return
        self.collection = next(iter(self.node2collection.values()))
        nodes = list(self.node2pending)
        for node, indices in zip(nodes, plan(self.collection, len(nodes)), strict=True):
            if indices:
                self.node2pending[node].extend(indices)
                node.send_runtest_some(indices)
        self.pending[:] = []
        self.check_schedule()
