#!/usr/bin/python3
"""Small ONNX models for tests/onnx.bats, built here with onnx.helper (no
binary is committed), with their expected outputs computed by numpy.

    cases.py make CASE DIR        DIR/model.onnx and DIR/NAME.npy per input
    cases.py run CASE DIR BIN [--lower]
                                  make, then BIN/ir-import-onnx, BIN/ir-run
                                  --interp (after ir-plan-devices | ir-lower
                                  | ir-plan-devices with --lower), and
                                  compare with numpy; exit 1 on a difference
    cases.py list                 the cases
"""
import os
import sys

# The cases are in onnx_cases.py, imported rather than run as the script:
# compiling its 1,500 lines took 20 ms of CPU a run, two thirds of a run in
# tests/run.sh's python3 server, and tests/onnx.bats runs this 136 times a
# build.  Under tests/run.sh the bytecode goes to the check's shared folder
# (every job of both builds reads it), even where PYTHONDONTWRITEBYTECODE
# is set; elsewhere python3's own rules apply.
if os.environ.get("IRPIPE_CHECK_SHARED"):
    sys.pycache_prefix = os.path.join(os.environ["IRPIPE_CHECK_SHARED"], "pycache")
    sys.dont_write_bytecode = False
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import onnx_cases  # noqa: E402

onnx_cases.main(__doc__)
