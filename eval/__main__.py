"""`python -m eval`: the capability-selection benchmark (see eval/run.py)."""

import sys

from eval.run import main

sys.exit(main())
