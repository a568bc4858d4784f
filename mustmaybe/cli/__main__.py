"""`python -m mustmaybe.cli`: the `mustmaybe` command."""

from . import main

raise SystemExit(main())
