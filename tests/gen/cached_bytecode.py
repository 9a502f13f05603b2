"""Imported first by the scripts of tests/gen (and those that use them):
under tests/run.sh ($IRPIPE_CHECK_SHARED set) the bytecode of the modules
imported after it (gen.py's 2,100 lines took 15 ms of CPU to compile on
every run of check.py) is cached in the check's shared folder, which the
jobs of both builds read, even where PYTHONDONTWRITEBYTECODE is set: the
python3 server of tests/run.sh starts with that setting, so the
environment cannot change it.  Elsewhere python3's own rules apply."""
import os
import sys

if os.environ.get("IRPIPE_CHECK_SHARED"):
    sys.pycache_prefix = os.path.join(os.environ["IRPIPE_CHECK_SHARED"], "pycache")
    sys.dont_write_bytecode = False
