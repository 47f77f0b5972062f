"""The package under test is the checkout's (python/), its library and
executable those of the checkout's build folder (DVSIM_BUILD, default build)."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))
