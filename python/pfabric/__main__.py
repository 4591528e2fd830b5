"""`python -m pfabric`: the same as the `pfabric` command."""

from .cli import main

raise SystemExit(main())
