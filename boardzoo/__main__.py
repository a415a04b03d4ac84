"""``python -m boardzoo``: the ``boardzoo`` command line."""

import sys

from boardzoo.cli import main

sys.exit(main())
