"""`python -m gatehouse.cli`: the command line of this checkout, as the tests and the bench run it."""

import sys

from gatehouse.cli.commands import main

sys.exit(main())
