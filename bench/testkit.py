# SPDX-License-Identifier: GPL-2.0-only
"""What bench/test_*.py share: a fake perf test and a kselftest install
tree holding it (fake_tree), stdout and stderr captured (Quiet)."""
import io
import os
import sys

# A fake perf test: writes time_ns from its directory's "base" file and
# its run count (a steady sequence), honours --json FILE; -fail exits 1,
# -hang sleeps, -skip exits 4.
FAKE = r'''#!/bin/sh
json=
for a in "$@"; do
  case $prev in --json) json=$a ;; esac
  prev=$a
  case $a in
  -fail) echo "bad option"; exit 1 ;;
  -hang) exec sleep 5 ;;
  -skip) echo "SKIP: no such thing"; exit 4 ;;
  esac
done
n=$(cat count 2>/dev/null || echo 0); echo $((n + 1)) >count
v=$(( $(cat base) + (n * 37) % 11 ))
echo "RESULT time_ns=$v"
[ -z "$json" ] || printf '{"runs": [{"figures": {"time_ns": {"value": %d, "unit": "ns"}}}]}\n' "$v" >"$json"
'''


def fake_tree(root, base, name='fake_test'):
    """A kselftest install tree with the fake test (and a guest_print_test
    that passes, for the host probe)."""
    kvm = os.path.join(root, 'kvm')
    os.makedirs(kvm)
    open(os.path.join(root, 'kselftest-list.txt'), 'w').close()
    for n, text in ((name, FAKE), ('guest_print_test', '#!/bin/sh\nexit 0\n')):
        with open(os.path.join(kvm, n), 'w') as f:
            f.write(text)
        os.chmod(os.path.join(kvm, n), 0o755)
    with open(os.path.join(kvm, 'base'), 'w') as f:
        f.write('%d\n' % base)
    return root


class Quiet:
    """stdout and stderr captured."""

    def __enter__(self):
        self.old = sys.stdout, sys.stderr
        sys.stdout, sys.stderr = io.StringIO(), io.StringIO()
        return self

    def __exit__(self, *exc):
        self.out, self.err = sys.stdout.getvalue(), sys.stderr.getvalue()
        sys.stdout, sys.stderr = self.old
