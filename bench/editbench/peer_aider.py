"""Run by the aider venv's python: JSON lines in (text, old, new), JSON lines out (result)."""

import json
import sys

from aider.coders.editblock_coder import replace_most_similar_chunk

for raw in sys.stdin:
    t = json.loads(raw)
    try:
        res = replace_most_similar_chunk(t["text"], t["old"], t["new"])
        out = {"id": t["id"], "result": res}
    except Exception as e:  # a crash counts as a refusal
        out = {"id": t["id"], "result": None, "error": repr(e)}
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()
