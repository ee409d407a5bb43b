import sys

from rftc.cli import main

sys.exit(main())
