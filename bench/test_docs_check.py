#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Unit tests of bench/kvmbench/checks/docs_check.py: the repo passes every check,
and a copy of it with one violation planted fails the check it breaks,
with a line naming the violation.
Run: python3 bench/test_docs_check.py (--tap: kselftest TAP, one result a
test)"""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

BENCH = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(BENCH)
sys.path.insert(0, BENCH)
from kvmbench.base.tap import tap  # noqa: E402
from kvmbench.checks import docs_check, docs_check_code  # noqa: E402


def repo_files():
    """The repo's files: git's list where there is a .git, else all but build/."""
    r = subprocess.run(['git', '-C', REPO, 'ls-files', '-z'], capture_output=True)
    if r.returncode == 0 and r.stdout:
        return [f for f in r.stdout.decode().split('\0') if f]
    out = []
    for dirpath, dirs, files in os.walk(REPO):
        dirs[:] = [d for d in dirs if not (dirpath == REPO and d in ('build', '.git'))]
        out += [os.path.relpath(os.path.join(dirpath, f), REPO) for f in files]
    return out


class Planted(unittest.TestCase):
    """Each test plants one violation in a copy of the repo."""

    files = None

    def setUp(self):
        if Planted.files is None:       # once (kvmbench.base.tap runs no setUpClass)
            Planted.files = repo_files()
        self.tmp = tempfile.TemporaryDirectory()
        self.root = self.tmp.name
        for f in Planted.files:
            src = os.path.join(REPO, f)
            if os.path.isfile(src):
                os.makedirs(os.path.dirname(os.path.join(self.root, f)), exist_ok=True)
                shutil.copy2(src, os.path.join(self.root, f))

    def tearDown(self):
        self.tmp.cleanup()

    def edit(self, path, old, new):
        p = os.path.join(self.root, path)
        with open(p) as f:
            text = f.read()
        self.assertIn(old, text)
        with open(p, 'w') as f:
            f.write(text.replace(old, new, 1))

    def write(self, path, text):
        p = os.path.join(self.root, path)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, 'w') as f:
            f.write(text)

    def append(self, path, text):
        with open(os.path.join(self.root, path), 'a') as f:
            f.write(text)

    def problems(self, check):
        return docs_check.run(self.root, [check])[check]

    def assert_found(self, check, *words):
        """check finds exactly one problem, and it names every word."""
        found = self.problems(check)
        self.assertEqual(len(found), 1, found)
        for w in words:
            self.assertIn(w, found[0])

    def assert_all_found(self, check, *words):
        """check finds one problem per pair of words, a line naming both."""
        found = self.problems(check)
        pairs = [words[i:i + 2] for i in range(0, len(words), 2)]
        self.assertEqual(len(found), len(pairs), found)
        for pair in pairs:
            self.assertTrue([line for line in found if all(w in line for w in pair)],
                            (pair, found))

    def test_copy_passes(self):
        found = ['%s: %s' % (c, p) for c, ps in docs_check.run(self.root).items() for p in ps]
        self.assertEqual(found, [], '\n' + '\n'.join(found))

    def test_row_missing(self):
        with open(os.path.join(self.root, 'docs/tests.md')) as f:
            row = [line for line in f if line.startswith('| `exit_stats_test` |')][0]
        self.edit('docs/tests.md', row, '')
        self.assert_found('tests', 'no row for exit_stats_test')

    def test_new_tests_without_rows(self):
        for path in ('x86_64/planted_test.c', 'planted/planted_test.c'):
            self.write(path, 'int main(void) { return 0; }\n')
        self.assert_all_found('tests', 'no row for planted_test ', '(the Makefile',
                              'no row for x86_64/planted_test', '(the Makefile')

    def test_cases_missing(self):
        shutil.rmtree(os.path.join(self.root, 'testcases/exit_stats_test'))
        self.assert_found('tests', 'exit_stats_test', 'no cases')

    def test_no_cases_said_but_has_cases(self):
        self.write('testcases/guest_print_test/default.test', 'guest_print_test\n')
        self.assert_found('tests', 'guest_print_test', 'says "no cases"')

    def test_paths_missing(self):
        self.append('docs/perf.md', '\nSee `lib/planted.c` and `vm/run --arch x86_64`.\n')
        self.append('README.md', '\nRun `bench/planted --out anything/at/all`.\n')
        self.append('docs/design.md', '\nThe core is `planted_util.c`.\n')
        self.assert_all_found('paths', 'README.md:', '`bench/planted`', 'docs/design.md:',
                              '`planted_util.c`', 'docs/perf.md:', '`lib/planted.c`')

    def test_placeholders_build_and_code_blocks_pass(self):
        self.append('docs/perf.md', '\n`lib/<arch>/processor.c`, `testcases/<test>/*.test`, '
                    '`include/NAME.h`, `build/nothing/yet`, `unit/test_util_test`\n'
                    '\n```\nlib/not_checked_in_a_block.c\n```\n')
        self.assertEqual(self.problems('paths'), [])

    def test_base_includes_scenario(self):
        self.edit('lib/test_util.c', '#include "test_util.h"',
                  '#include "test_util.h"\n#include "perf_test_util.h"')
        self.assert_found('layers', 'lib/test_util.c (base) includes include/perf_test_util.h '
                          '(scenarios)')

    def test_core_includes_arch_port(self):
        self.edit('lib/memslot.c', '#include "kvm_util.h"',
                  '#include "kvm_util.h"\n#include "processor.h"')
        found = self.problems('layers')
        self.assertTrue(found)
        self.assertTrue(all('lib/memslot.c (core) includes include/' in p and
                            'processor.h (arch)' in p for p in found), found)

    def test_file_in_no_layer(self):
        self.write('lib/planted.c', '#include "test_util.h"\n')
        self.assert_found('layers', 'lib/planted.c', 'in no layer')

    def test_layer_names_a_missing_file(self):
        self.edit('docs/design.md', '`latency_hist`, ', '`latency_hist`, `planted`, ')
        self.assert_found('layers', 'planted', 'no file')

    def test_python_import_up_the_layers(self):
        """kernels may import only kernels and base: debian importing
        checks' docs_check_code (inside a function too) is refused."""
        self.append('bench/kvmbench/kernels/debian.py', '\n\ndef planted():\n'
                    '    from kvmbench.checks import docs_check_code\n    return docs_check_code\n')
        self.assert_found('python', 'bench/kvmbench/kernels/debian.py:', '(kernels) imports '
                          'kvmbench.checks.docs_check_code (checks)', 'may import only base, kernels')

    def test_python_import_circle(self):
        """Two modules of one package that import each other: a circle,
        though the package may import itself."""
        self.append('bench/kvmbench/base/errors.py', '\nfrom . import tap  # noqa: E402,F401\n')
        self.assertEqual(self.problems('python'), [])
        self.edit('bench/kvmbench/base/tap.py', '\nimport ', '\nfrom kvmbench.base import errors\nimport ')
        self.assert_found('python', 'a circle', 'kvmbench.base.errors -> kvmbench.base.tap -> '
                          'kvmbench.base.errors')

    def test_python_packages_may_import_each_other(self):
        """The "may import" column is a layer order: base allowed to
        import vmrun, which may import base, is refused."""
        self.edit('docs/design.md', '| `errors` (a one-line message and an exit status), '
                  '`tap` (the one TAP writer) | base |', '| `errors`, `tap` | base, vmrun |')
        self.assert_found('python', 'may import each other', 'base -> vmrun -> ')

    def test_python_module_outside_the_table(self):
        self.write('bench/kvmbench/planted.py', '"""flat"""\n')
        self.write('bench/kvmbench/vmrun/planted.py', '"""no row"""\n')
        self.edit('docs/design.md', '`tap` (the one TAP writer)', '`tap`, `gone`')
        self.assert_all_found('python', 'bench/kvmbench/planted.py', 'in no package',
                              'bench/kvmbench/vmrun/planted.py', "not in vmrun's row",
                              "base's row names gone", 'no module')

    def test_lib_file_of_one_test(self):
        self.write('lib/planted.c', '#include "test_util.h"\n\nint planted_helper(void)\n'
                   '{\n\treturn 1;\n}\n')
        self.edit('docs/design.md', '`latency_hist`, ', '`latency_hist`, `planted`, ')
        self.edit('exit_stats_test.c', 'int main(', 'int planted_helper(void);\n\nint main(')
        self.assert_found('lib', 'lib/planted.c', 'used by 1 test (exit_stats_test)')

    def test_lib_file_used_through_a_header_macro(self):
        self.write('lib/planted.c', 'int planted_helper(void)\n{\n\treturn 1;\n}\n')
        self.edit('docs/design.md', '`latency_hist`, ', '`latency_hist`, `planted`, ')
        self.write('include/planted.h', '#define PLANTED() planted_helper()\n')
        self.edit('exit_stats_test.c', 'int main(', 'int planted_helper(void);\n\nint main(')
        self.edit('guest_print_test.c', 'int main(', 'static int x = PLANTED();\n\nint main(')
        self.assertEqual(self.problems('lib'), [])

    def test_one_test_list_kept_exact(self):
        self.edit('docs/design.md', '`userfaultfd_util` (demand', 'userfaultfd_util (demand')
        self.assert_found('lib', 'lib/userfaultfd_util.c', 'used by 1 test')

    def test_arch_code_outside_arch_dirs(self):
        self.edit('lib/memslot.c', '#include "kvm_util.h"',
                  '#include "kvm_util.h"\n#ifdef __x86_64__\n#endif')
        self.edit('exit_stats_test.c', 'int main(',
                  'static void planted(void)\n{\n\tasm volatile("nop");\n}\n\nint main(')
        found = self.problems('arch')
        self.assertEqual(len(found), 2, found)
        self.assertIn('exit_stats_test.c: inline assembly', found[0])
        self.assertIn('lib/memslot.c: an arch #ifdef', found[1])

    def test_shell_past_a_page(self):
        self.write('vm/planted.sh', '#!/bin/bash\n# comment\n\n' + 'echo x\n' * 61)
        self.write('lava/ci', '#!/bin/bash\n' + 'echo x\n' * 60)
        found = self.problems('shell')
        self.assertEqual(len(found), 2, found)
        self.assertIn('lava/ci: 60 lines of logic, within a page', found[0])
        self.assertIn('vm/planted.sh: 61 lines of logic, past a page', found[1])

    def test_name_missing(self):
        name = 'planted' + '_fn'       # in no file of the copy, this one included
        self.append('docs/tests.md', '\n`vm_create()` and `%s(vm)`, upstream\'s '
                    '`memstress_guest_code()`, `perf_report_u64()`/`_double()`\n' % name)
        self.assert_found('names', 'docs/tests.md', name + '()')

    def test_option_missing(self):
        opt = '--planted' + '-option'       # in no file of the copy
        self.append('docs/vm.md', '\n`vm/run --arch arm64 %s` and `./demand_paging_test %s`\n'
                    '\n```\nbench/compare --runs 6 %s -- x\n```\n' % (opt, opt, opt))
        self.assert_all_found('options', 'vm/run ' + opt, 'docs/vm.md:',
                              'bench/compare ' + opt, 'docs/vm.md:')

    def test_machine_path(self):
        self.append('docs/results/perf.md', '\nbuilt in %s\n' % os.path.join('/', 'work', 'x'))
        self.append('docs/vm.md', '\nfrom /home/alice/tree, or `~/tree` (allowed)\n')
        found = self.problems('machine')
        self.assertEqual(len(found), 2, found)
        self.assertEqual(sorted(p.split(':')[0] for p in found),
                         ['docs/results/perf.md', 'docs/vm.md'])


class Parsing(unittest.TestCase):
    def test_defined_globals(self):
        src = ('static struct s { int a; } hidden[4];\nstatic int f(void) { return 0; }\n'
               'int g(int x)\n{\n\treturn x;\n}\nconst struct ops ops_table = {\n\t.f = f,\n};\n'
               'int counter;\nint proto(void);\nstruct t { int b; };\n'
               '__attribute__((noinline)) void h(void) {}\n'
               '/* int commented(void) { } */\nchar *s = "int quoted(void) {";\n')
        self.assertEqual(docs_check_code.defined_globals(src), {'g', 'ops_table', 'counter', 'h', 's'})

    def test_header_aliases(self):
        src = ('#define A(x) \\\n\tb_fn(x)\nstatic inline int c(void)\n{\n\treturn d_fn();\n}\n')
        al = docs_check_code.header_aliases(src)
        self.assertIn('b_fn', al['A'])
        self.assertIn('d_fn', al['c'])

    def test_usage_errors(self):
        for args in (['--only', 'nosuch'], ['--root', '/nonexistent']):
            r = subprocess.run([sys.executable, os.path.join(BENCH, 'kvmbench/checks/docs_check.py')]
                               + args, capture_output=True, text=True)
            self.assertEqual(r.returncode, 2)
            self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
            self.assertTrue(r.stderr.startswith('docs_check: '), r.stderr)


if __name__ == '__main__':
    if sys.argv[1:] == ['--tap']:
        sys.exit(tap(sys.modules[__name__], 'docs_check'))
    unittest.main()
