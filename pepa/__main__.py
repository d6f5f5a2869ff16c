"""``python -m pepa`` runs the ``pepa`` command."""

from __future__ import annotations

import sys

from pepa.cli.commands import main

sys.exit(main())
