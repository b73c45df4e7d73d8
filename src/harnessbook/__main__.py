"""``python -m harnessbook``: the same command line as ``harnessbook``."""

import sys

from harnessbook.cli import main

sys.exit(main())
