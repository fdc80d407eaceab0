"""`python -m gatehouse` runs the command line, as the `gatehouse` script does: for a checkout
used without the virtual environment's bin/ on the PATH."""

import sys

from gatehouse.cli import main

sys.exit(main())
