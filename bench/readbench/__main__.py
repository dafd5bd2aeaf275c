"""``python -m bench.readbench``: run the read benchmark (see README.md)."""

from bench.readbench.run import main

raise SystemExit(main())
