"""``python -m bench.largebench``: run the large-file change benchmark (see README.md)."""

from bench.largebench.run import main

raise SystemExit(main())
