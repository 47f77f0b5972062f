#!/usr/bin/env python3
"""test_checkers.py - the tree checkers fail when they should.

scripts/check_layers.py and scripts/check_tables.py pass on the repository
(tests layers and tables); this shows they are not checks that cannot fail:
each is run on small synthetic trees, one clean and one per kind of
problem, and must say the problem (exit 1 and a line naming the file) or
pass (exit 0).  Usage: test_checkers.py SOURCE_ROOT
"""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = None


def run(script, tree):
    p = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", script), tree],
                       capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def make_tree(files):
    """A temporary tree of {path: text}; the caller removes it."""
    d = tempfile.mkdtemp(prefix="dv-checkers-")
    for path, text in files.items():
        full = os.path.join(d, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as f:
            f.write(text)
    return d


CLEAN = {
    "base/dv_error.h": "int dv_error;\n",
    "base/error.c": '#include "dv_error.h"\n',
    "isa/dv_isa.h": '#include "dv_error.h"\n',
    "isa/isa.c": '#include "dv_isa.h"\n',
    "sim/dv_sim.h": '#include "dv_isa.h"\n',
    "sim/core/sim.c": '#include "dv_sim.h"\n#include "core_state.h"\n',
    "sim/core/core_state.h": '#include "dv_unit.h"\n',
    "sim/units/dv_unit.h": '#include "dv_isa.h"\n',
    "sim/units/unit.c": '#include "dv_unit.h"\n',
    "kernels/op.c": '#include "dv_sim.h"\n',
}


def check_tree(case, script, base, extra, expect_fail, needles):
    """Runs script on base + extra; case asserts the exit code and the needles."""
    files = dict(base)
    files.update(extra)
    tree = make_tree(files)
    try:
        rc, out = run(script, tree)
    finally:
        shutil.rmtree(tree)
    case.assertEqual(rc, 1 if expect_fail else 0, out)
    for n in needles:
        case.assertIn(n, out)


class Layers(unittest.TestCase):
    def check(self, extra, expect_fail, *needles):
        check_tree(self, "check_layers.py", CLEAN, extra, expect_fail, needles)

    def test_clean_tree_passes(self):
        self.check({}, False, "no include cycles")

    def test_lower_layer_includes_higher(self):
        self.check({"base/error.c": '#include "dv_error.h"\n#include "dv_sim.h"\n'}, True,
                   "base/error.c:2: base includes sim/dv_sim.h")

    def test_project_header_in_angle_brackets(self):
        self.check({"base/error.c": '#include <dv_sim.h>\n#include <stdio.h>\n'}, True,
                   "base/error.c:1: base includes sim/dv_sim.h")

    def test_sublayer_order(self):
        # sim/config comes before sim's own interface
        self.check({"sim/config/cfg.c": '#include "dv_sim.h"\n'}, True,
                   "sim/config/cfg.c:1: includes sim/dv_sim.h, which comes later in sim's order")

    def test_sanitizer_comes_after_the_cores(self):
        # sim/sanitize observes the cores through the public hooks: it may
        # include sim's interface, but the cores may not include it
        self.check({"sim/sanitize/dv_sanitize.h": '#include "dv_sim.h"\n',
                    "sim/sanitize/san.c": '#include "dv_sanitize.h"\n'}, False)
        self.check({"sim/sanitize/dv_sanitize.h": '#include "dv_sim.h"\n',
                    "sim/core/core_pipes.c": '#include "dv_sanitize.h"\n'}, True,
                   "sim/core/core_pipes.c:1: includes sim/sanitize/dv_sanitize.h, which comes later in sim's order")

    def test_folder_outside_the_layers(self):
        self.check({"extra/meson.build": "\n", "extra/x.c": '#include "dv_sim.h"\n'}, True,
                   "extra/meson.build: a top-level folder that is not in")

    def test_module_cycle(self):
        self.check({"kernels/a.c": '#include "b.h"\n', "kernels/a.h": "\n",
                    "kernels/b.c": '#include "a.h"\n', "kernels/b.h": "\n"}, True,
                   "include cycle between modules kernels/a, kernels/b")

    def test_folder_cycle(self):
        self.check({"sim/units/unit.c": '#include "dv_unit.h"\n#include "core_state.h"\n'}, True,
                   "include cycle between folders sim/core, sim/units")

    def test_private_header_is_its_module(self):
        # pipe_priv.h belongs to pipe.c: pipe.c including it is no cycle
        # (its header includes the module's public one: two modules, that would be a cycle)
        self.check({"sim/core/pipe.c": '#include "pipe.h"\n#include "pipe_priv.h"\n',
                    "sim/core/pipe.h": "\n",
                    "sim/core/pipe_priv.h": '#include "pipe.h"\n'}, False)


PIPES = ('DV_PIPE_ROW(S, x, "s", "PIPE-S", "scalar", "doc")\n'
         'DV_PIPE_ROW(V, x, "v", "PIPE-V", "vector", "doc")\n'
         'DV_PIPE_ROW(M, x, "m", "PIPE-M", "cube", "doc")\n'
         'DV_PIPE_ROW(MTE2, x, "mte2", "PIPE-MTE2", "mte2_pipe", "doc")\n')
PATHS = ('DV_PATH_ROW(GM_L1, x, "gm->l1", "gm_l1", GM, L1, 1, 2, 3, 4, "doc")\n'
         'DV_PATH_ROW(L1_L0A, x, "l1->l0a", "l1_l0a", L1, L0A, 1, 2, 3, 4, "doc")\n')


class EmptyRoot(unittest.TestCase):
    def test_no_sources_fails(self):
        tree = make_tree({"README": "no code here\n"})
        try:
            for script in ("check_layers.py", "check_format.py"):
                rc, out = run(script, tree)
                self.assertEqual(rc, 1, script + ": " + out)
                self.assertIn("no C sources", out)
        finally:
            shutil.rmtree(tree)


class Tables(unittest.TestCase):
    def check(self, extra, expect_fail, *needles):
        base = {"isa/pipes.def": PIPES, "isa/paths.def": PATHS, "isa/isa.c": "int x;\n"}
        check_tree(self, "check_tables.py", base, extra, expect_fail, needles)

    def test_clean_tree_passes(self):
        self.check({}, False, "each name in its table only")

    def test_pipe_name_outside_its_table(self):
        self.check({"viz/legend.c": 'const char *l = "mte2";\n'}, True,
                   'viz/legend.c:1: "mte2" is a name of isa/pipes.def')

    def test_path_key_outside_its_table(self):
        self.check({"sim/stats.c": '\nconst char *k = "gm_l1";\n'}, True, 'sim/stats.c:2: "gm_l1"')

    def test_after_a_character_literal(self):
        self.check({"sim/stats.c": "int q(char c) { return c == '\"' ? g(\"mte2\") : 0; }\n"}, True,
                   'sim/stats.c:1: "mte2"')

    def test_semicolons_in_c_inc_files(self):
        self.check({"isa/asm_pseudo.inc": 'int x; const char *p = "mte2";\n'}, True,
                   'isa/asm_pseudo.inc:1: "mte2"')

    def test_comments_and_one_letter_names_pass(self):
        self.check({"sim/stats.c": '/* "mte2" */ // "cube"\nconst char *p = "s";\n',
                    "kernels/k.dvs": '; "vector"\n'}, False)


if __name__ == "__main__":
    ROOT = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=1)
