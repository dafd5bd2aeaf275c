"""``python -m bench.editbench``: run the edit benchmark."""

from bench.editbench.run import main

raise SystemExit(main())
