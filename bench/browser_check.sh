#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# bench/browser_check.sh REPORT.html [SCREENSHOT.png]: load a report
# (bench/track --report's track.html) in headless Debian chromium
# (installed when missing) and check that it loads with no script
# error, that every image rendered (complete, with a width) and that
# the first plot sits above the first changelog entry (an element of
# class changelog-entry, if there is one: the plots are not pushed
# below a changelog).  The
# report is copied with a probe script appended; the copy is loaded,
# never the file given.  Prints one line; exit 0 good, 1 bad, 2 usage,
# 4 no chromium to be had (SKIP).
set -u
html=${1:-}
shot=${2:-}
if [[ -z $html || ! -f $html || $# -gt 2 ]]; then
	echo "usage: bench/browser_check.sh REPORT.html [SCREENSHOT.png]" >&2
	exit 2
fi
# shellcheck source=vm/build-deps.sh
. "$(dirname "${BASH_SOURCE[0]}")/../vm/build-deps.sh"
if ! command -v chromium >/dev/null; then
	ensure_packages chromium >&2 || { echo "SKIP: chromium cannot be installed"; exit 4; }
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$html" "$tmp/page.html"
# The probe: script errors counted from the start, images checked on load,
# the verdict written into the DOM that --dump-dom prints.
cat >>"$tmp/page.html" <<'EOF'
<script>
var probeErrors = 0;
window.addEventListener('error', function () { probeErrors++; }, true);
window.addEventListener('load', function () {
  var imgs = Array.prototype.slice.call(document.images);
  var ok = imgs.filter(function (i) { return i.complete && i.naturalWidth > 0; }).length;
  var entry = document.querySelector('.changelog-entry');
  var above = 'none';
  if (entry && imgs.length)
    above = imgs[0].getBoundingClientRect().top < entry.getBoundingClientRect().top ? 'yes' : 'no';
  var p = document.createElement('pre');
  p.id = 'probe';
  p.textContent = 'PROBE images=' + imgs.length + ' rendered=' + ok + ' errors=' + probeErrors +
    ' plot_above_changelog=' + above;
  document.body.appendChild(p);
});
</script>
EOF
flags=(--headless --no-sandbox --disable-gpu --disable-background-networking
	--disable-component-update --disable-sync --no-first-run
	--user-data-dir="$tmp/profile" --virtual-time-budget=10000)
dom=$(timeout 120 chromium "${flags[@]}" --dump-dom "file://$tmp/page.html" 2>"$tmp/err")
rc=$?
probe=$(grep -o 'PROBE images=[0-9]* rendered=[0-9]* errors=[0-9]* plot_above_changelog=[a-z]*' <<<"$dom")
if ((rc)) || [[ -z $probe ]]; then
	echo "bad: chromium exited $rc without the page's probe; its last lines:"
	tail -n 5 "$tmp/err"
	exit 1
fi
if [[ -n $shot ]]; then
	timeout 120 chromium "${flags[@]}" --window-size=1200,1600 --screenshot="$shot" \
		"file://$tmp/page.html" >/dev/null 2>&1 || echo "(no screenshot: chromium failed)"
fi
[[ $probe =~ images=([0-9]+)\ rendered=([0-9]+)\ errors=([0-9]+)\ plot_above_changelog=([a-z]+) ]]
imgs=${BASH_REMATCH[1]} ok=${BASH_REMATCH[2]} errs=${BASH_REMATCH[3]} above=${BASH_REMATCH[4]}
where="the first plot above the first changelog entry"
[[ $above == none ]] && where="no changelog entry"
if ((errs == 0 && imgs > 0 && ok == imgs)) && [[ $above != no ]]; then
	echo "ok: $html loaded in chromium, $ok of $imgs images rendered, no load or script errors, $where"
	exit 0
fi
[[ $above == no ]] && where="the first changelog entry above the first plot"
echo "bad: $html in chromium: $ok of $imgs images rendered, $errs load or script errors, $where"
exit 1
