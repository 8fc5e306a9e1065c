"""``python -m yardstick.ci``: the CI gate (see :mod:`yardstick.ci.gate`)."""

from yardstick.ci.gate import main

raise SystemExit(main())
