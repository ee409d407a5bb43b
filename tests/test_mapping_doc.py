"""docs/mapping.md is generated from the rule table and must be current."""

import subprocess
import sys

from support.paths import ROOT


def test_mapping_doc_is_current():
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_mapping_doc.py"), "--check"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
