#!/usr/bin/env bash
# `make systemtest` (vm.sh run) and `make systemtest-shell` (vm.sh shell): boots the Debian trixie
# test VM under QEMU with the checkout shared read-only, building the image first if the cache
# does not have it. See docs/systemtest.md.
#
# Exit codes: 0 every scenario passed; 1 a scenario failed (or the run broke); 3 the VM cannot be
# had on this machine (the reason is one line on stderr and in build/systemtest/outcome).
set -euo pipefail

MODE=${1:-run}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CHECKOUT=$(cd "$HERE/../.." && pwd)
RESULTS=$CHECKOUT/build/systemtest
OUTCOME=$RESULTS/outcome
EXIT_UNAVAILABLE=3
if [[ $EUID -eq 0 ]]; then DEFAULT_CACHE=/var/cache/card-launcher-systemtest
else DEFAULT_CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/card-launcher-systemtest; fi
CACHE=${SYSTEMTEST_CACHE:-$DEFAULT_CACHE}
# Under TCG the guest is slow: the whole run, boot to power-off, must end within this.
RUN_TIMEOUT=${SYSTEMTEST_TIMEOUT:-60m}

say() { printf '[systemtest %s] %s\n' "$(date +%H:%M:%S)" "$*"; }
unavailable() {
    echo "make systemtest: no VM on this machine: $*" >&2
    echo "unavailable: $*" > "$OUTCOME"
    exit $EXIT_UNAVAILABLE
}

rm -rf "$RESULTS"
mkdir -p "$RESULTS"

# Host tools: installed from Debian when missing and we may (root with apt-get), else one line.
need_tools() {
    local missing=() tool
    for tool in "$@"; do command -v "${tool%%:*}" > /dev/null || missing+=("${tool#*:}"); done
    [[ ${#missing[@]} -eq 0 ]] && return 0
    if [[ $EUID -eq 0 ]] && command -v apt-get > /dev/null; then
        say "installing ${missing[*]} from Debian"
        { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}"; } \
            > "$RESULTS/apt.log" 2>&1 || unavailable "apt-get install ${missing[*]} failed (see $RESULTS/apt.log)"
        for tool in "$@"; do
            command -v "${tool%%:*}" > /dev/null || unavailable "${tool%%:*} still missing after apt-get install"
        done
        return 0
    fi
    unavailable "missing ${missing[*]} (as root: apt-get install ${missing[*]})"
}
need_tools qemu-system-x86_64:qemu-system-x86 qemu-img:qemu-utils

# The image is keyed by everything it is built from (the build script and the files put into it);
# Debian's archive moves on, so the kernel it got is recorded next to it.
KEY=$(cd "$HERE" && find build.sh gpiosim image -type f | LC_ALL=C sort | xargs sha256sum | sha256sum | cut -c1-16)
IMAGE=$CACHE/image-$KEY
mkdir -p "$CACHE"
if [[ ! -f $IMAGE/rootfs.img ]]; then
    need_tools mmdebstrap:mmdebstrap mkfs.ext4:e2fsprogs
    [[ $EUID -eq 0 ]] || unavailable "the first build of the image needs root (mmdebstrap, chroot): sudo make systemtest"
    say "no image $IMAGE in the cache: building it (about 15 minutes on 2 cores; later runs reuse it)"
    start=$SECONDS
    flock "$CACHE/.build.lock" bash -c '[[ -f $1/rootfs.img ]] || "$2/build.sh" "$1"' _ "$IMAGE" "$HERE" \
        2>&1 | tee "$RESULTS/build.log" | grep --line-buffered -E '^\[|^I: |^E: |rror' || true
    [[ -f $IMAGE/rootfs.img ]] || { echo "make systemtest: the image build failed: see $RESULTS/build.log" >&2; exit 1; }
    say "image built in $((SECONDS - start)) s"
fi
KVER=$(cat "$IMAGE/kernel-version")

# The project's Python dependencies as wheels for the guest's Python 3.13 (the guest has no
# network; its pip.conf points at this share), keyed by pyproject.toml.
WHEELS=$CACHE/wheels-$(sha256sum "$CHECKOUT/pyproject.toml" | cut -c1-16)
if [[ ! -f $WHEELS/.done ]]; then
    say "downloading the project's dependencies as wheels for Python 3.13 into $WHEELS"
    rm -rf "$WHEELS"; mkdir -p "$WHEELS"
    PIP=(python3 -m pip)
    [[ -x $CHECKOUT/.venv/bin/python ]] && PIP=("$CHECKOUT/.venv/bin/python" -m pip)
    deps=$(python3 - "$CHECKOUT/pyproject.toml" << 'PY'
import sys, tomllib
with open(sys.argv[1], "rb") as f:
    project = tomllib.load(f)
print("\n".join([*project["project"]["dependencies"], *project["build-system"]["requires"], "wheel"]))
PY
)
    mapfile -t deps <<< "$deps"
    "${PIP[@]}" download --quiet --dest "$WHEELS" --only-binary=:all: --python-version 3.13 \
        --implementation cp --abi cp313 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
        --platform manylinux_2_28_x86_64 --platform linux_x86_64 --platform any "${deps[@]}" 2>&1 \
        | grep -v "^WARNING: Location" || true
    ls "$WHEELS"/gpiozero-*.whl > /dev/null 2>&1 \
        || unavailable "could not download the dependencies' wheels from PyPI"
    touch "$WHEELS/.done"
fi

# KVM only where a short probe boot gets into the kernel: nested virtualisation hangs on some
# hosts right after "Booting from ROM". The answer is kept per host kernel and QEMU version.
ACCEL=(-accel tcg -cpu max)
PROBE=$CACHE/kvm-probe-$(uname -r)-$(qemu-system-x86_64 --version | head -n 1 | tr -cd '0-9.')
if [[ -r /dev/kvm && -w /dev/kvm && ${SYSTEMTEST_ACCEL:-} != tcg ]]; then
    if [[ ! -f $PROBE ]]; then
        say "probing KVM (20 s at most)"
        if timeout 20 qemu-system-x86_64 -accel kvm -cpu host -m 256 -nographic -no-reboot -nic none \
            -kernel "$IMAGE/vmlinuz" -append "console=ttyS0 panic=-1 init=/nonexistent" 2>&1 \
            | grep -q -m 1 'Kernel panic\|Run /nonexistent'; then echo kvm > "$PROBE"; else echo tcg > "$PROBE"; fi
    fi
    [[ $(cat "$PROBE") == kvm ]] && ACCEL=(-accel kvm -cpu host)
fi
say "booting Debian trixie, kernel $KVER, ${ACCEL[1]} $( [[ ${ACCEL[1]} == tcg ]] && echo '(emulated: slow, minutes)')"

# Knobs for one run, read by guest-run.sh: which tests (SYSTEMTEST_PYTEST_ARGS, e.g. "-k scenario_3")
# the sample sizes of the performance test, and SYSTEMTEST_TRACE=1 for the kernel's view of the edges.
env | grep -E '^SYSTEMTEST_(PYTEST_ARGS|PRESSES|BASELINE_PRESSES|LOADED_PRESSES|JAMS|TRACE)=' | sed "s/=\(.*\)/='\1'/" > "$RESULTS/env" || true

# loglevel=5: an oops's registers and call trace (printed at the default level, 4) reach the
# console with the emergency line that starts it; info messages stay out.
CMDLINE="root=/dev/vda rw console=ttyS0 systemd.show_status=auto loglevel=5 panic=-1"
CMDLINE+=" systemtest.accel=${ACCEL[1]}"
[[ $MODE == run ]] && CMDLINE+=" systemtest.run"
QEMU=(qemu-system-x86_64 "${ACCEL[@]}" -smp 2 -m 1536 -nographic -no-reboot -nic none
    -kernel "$IMAGE/vmlinuz" -initrd "$IMAGE/initrd.img" -append "$CMDLINE"
    -drive "file=$RESULTS/overlay.qcow2,if=virtio,format=qcow2"
    -virtfs "local,path=$CHECKOUT,mount_tag=checkout,security_model=none,readonly=on"
    -virtfs "local,path=$RESULTS,mount_tag=results,security_model=none"
    -virtfs "local,path=$WHEELS,mount_tag=wheels,security_model=none,readonly=on")

if [[ $MODE == shell ]]; then
    say "root shell on the serial console; the checkout is /mnt/checkout (read-only)."
    say "run the scenarios: sh /mnt/checkout/tests/system/guest-run.sh; leave: poweroff (or Ctrl-A X)"
    qemu-img create -q -f qcow2 -F raw -b "$IMAGE/rootfs.img" "$RESULTS/overlay.qcow2"
    exec "${QEMU[@]}"
fi

# One boot of the VM on a fresh overlay, its console in console.log; 0 when the guest wrote its rc.
boot() {
    rm -f "$RESULTS/overlay.qcow2" "$RESULTS/rc"
    qemu-img create -q -f qcow2 -F raw -b "$IMAGE/rootfs.img" "$RESULTS/overlay.qcow2"
    local start=$SECONDS
    set +e
    timeout --foreground "$RUN_TIMEOUT" "${QEMU[@]}" < /dev/null 2>&1 | tee "$RESULTS/console.log" \
        | grep --line-buffered -E '\[systemtest|::test_.* (PASSED|FAILED|ERROR|SKIPPED)|=====.* (passed|failed|error)|Kernel panic'
    set -e
    say "VM ran $((SECONDS - start)) s"
    [[ -f $RESULTS/rc ]]
}

# The kernel's lines of the console (an oops, a panic): where the run is a CI log the console file
# may never be seen, so they go with the verdict.
kernel_lines() {
    tr -d '\r' < "$1" | grep -a -oE '\[ *[0-9]+\.[0-9]+\] .*' | grep -a -v ' bash\[[0-9]*\]: ' | tail -n 80 >&2 || true
}

# The tests a console reported, and how: "tests/system/x.py::test_y PASSED".
reported() {
    tr -d '\r' < "$1" | grep -a -oE 'tests/system/[A-Za-z0-9_]+\.py::[A-Za-z0-9_]+ (PASSED|FAILED|ERROR|SKIPPED)' || true
}

if ! boot; then
    echo "make systemtest: the VM stopped before the tests finished: see $RESULTS/console.log" >&2
    kernel_lines "$RESULTS/console.log"
    # A panic of the guest's kernel (the rig's gpio-sim module, built out of tree, under an
    # emulated CPU) is no verdict on the product: once, and only when nothing had failed, the
    # tests it left unrun run in a fresh boot. A product that panics the kernel panics it again.
    reported_tests=$(reported "$RESULTS/console.log")
    if grep -aq 'Kernel panic' "$RESULTS/console.log" && ! grep -qE ' (FAILED|ERROR)$' <<< "$reported_tests"; then
        mv "$RESULTS/console.log" "$RESULTS/console-panicked.log"
        ids=$(sed 's/ [A-Z]*$//' <<< "$reported_tests" | tr '\n' ' ')
        echo "SYSTEMTEST_DESELECT='$ids'" >> "$RESULTS/env"
        say "the guest's kernel panicked with $(grep -c . <<< "$reported_tests") test(s) reported ($RESULTS/console-panicked.log): the rest in a fresh boot"
        if boot; then
            RERUN="the guest's kernel panicked with $(grep -c . <<< "$reported_tests") test(s) reported; the rest ran in a second boot"
            say "$RERUN"
        else
            echo "make systemtest: the second boot stopped before the tests finished too: see $RESULTS/console.log" >&2
            kernel_lines "$RESULTS/console.log"
        fi
    fi
    if [[ ! -f $RESULTS/rc ]]; then
        echo "broken: no result from the VM" > "$OUTCOME"
        exit 1
    fi
fi
[[ -f $RESULTS/results-system.json ]] && cp "$RESULTS/results-system.json" "$CHECKOUT/bench/results-system.json"
rc=$(cat "$RESULTS/rc")
if [[ $rc == 0 ]]; then echo "passed${RERUN:+ ($RERUN)}" > "$OUTCOME"; else echo "failed: pytest exit $rc" > "$OUTCOME"; fi
say "pytest log: $RESULTS/pytest.log; journal: $RESULTS/journal.txt"
exit $(( rc == 0 ? 0 : 1 ))
