# SPDX-License-Identifier: GPL-2.0-only
"""The bench scripts' Python package: KVM builds from source, compare and
bisect verdicts, LAVA (lab, jobs, API).  Standard library only; run as python3 -m kvmbench.NAME
with bench/ on PYTHONPATH (the thin shell entry points do that)."""
