"""``python -m pepa.daemon`` is the worker process (started by the process supervisor)."""

from __future__ import annotations

import sys

from pepa.daemon.worker import main

sys.exit(main())
