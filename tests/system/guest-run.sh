#!/bin/bash
# Inside the VM (systemtest-run.service, or by hand from `make systemtest-shell`): runs the
# scenarios from the read-only checkout and leaves everything the host reads in /mnt/results.
set -o pipefail
export PYTHONDONTWRITEBYTECODE=1
out=/mnt/results
echo "[systemtest guest] $(uname -r), $(python3 --version), systemd $(systemctl --version | head -n 1 | cut -d' ' -f2), up $(cut -d' ' -f1 /proc/uptime) s"
# shellcheck source=/dev/null
[ -f "$out/env" ] && . "$out/env" && export ${SYSTEMTEST_PRESSES+SYSTEMTEST_PRESSES} \
    ${SYSTEMTEST_BASELINE_PRESSES+SYSTEMTEST_BASELINE_PRESSES} ${SYSTEMTEST_LOADED_PRESSES+SYSTEMTEST_LOADED_PRESSES} \
    ${SYSTEMTEST_JAMS+SYSTEMTEST_JAMS} \
    ${SYSTEMTEST_TRACE+SYSTEMTEST_TRACE}
cd /mnt/checkout
# A second boot after a panic of the guest's kernel (vm.sh) leaves out the tests the first reported.
deselect=""
# Node ids are relative to the rootdir (tests/system); the console shows them from the checkout.
for test_id in ${SYSTEMTEST_DESELECT:-}; do deselect="$deselect --deselect ${test_id#tests/system/}"; done
# shellcheck disable=SC2086
python3 -m pytest -c tests/system/pytest.ini --rootdir tests/system tests/system ${SYSTEMTEST_PYTEST_ARGS:-} $deselect "$@" \
    --junitxml="$out/junit.xml" 2>&1 | tee "$out/pytest.log"
rc=$?
journalctl -b --no-pager > "$out/journal.txt" 2>&1
echo "$rc" > "$out/rc"
sync
# Booted for `make systemtest`: the results are on the host's disk, power off at once (the
# host waits for QEMU to exit). By hand in `make systemtest-shell`, stay.
if grep -qw systemtest.run /proc/cmdline; then systemctl poweroff --force --force; fi
