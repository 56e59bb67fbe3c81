#!/bin/bash
# Inside the VM (systemtest-run.service, or by hand from `make systemtest-shell`): runs the
# scenarios from the read-only checkout and leaves everything the host reads in /mnt/results.
set -o pipefail
export PYTHONDONTWRITEBYTECODE=1
out=/mnt/results
echo "[systemtest guest] $(uname -r), $(python3 --version), systemd $(systemctl --version | head -n 1 | cut -d' ' -f2), up $(cut -d' ' -f1 /proc/uptime) s"
cd /mnt/checkout
python3 -m pytest -c tests/system/pytest.ini --rootdir tests/system tests/system "$@" \
    --junitxml="$out/junit.xml" 2>&1 | tee "$out/pytest.log"
rc=$?
journalctl -b --no-pager > "$out/journal.txt" 2>&1
echo "$rc" > "$out/rc"
sync
