#!/usr/bin/env bash
# Builds what the system-test VM boots, into the cache directory given as $1:
#   rootfs.img   Debian trixie (systemd, python3-lgpio, gpiod, pytest), ext4, used read-only
#                through a throw-away qcow2 overlay per run
#   vmlinuz, initrd.img   trixie's generic amd64 kernel and its initramfs
#   gpiosim.ko is built inside the image (/lib/modules/KVER/extra): gpio-sim and irq_sim from
#                linux-source, compiled in the chroot with trixie's own gcc and linux-headers,
#                never in the emulated guest.
# Everything comes from Debian's archive. Called by tests/system/vm.sh when the cache misses.
set -euo pipefail

OUT=$1
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
MIRROR=${SYSTEMTEST_MIRROR:-http://deb.debian.org/debian}
WORK=$OUT.partial
ROOTFS=$WORK/rootfs

step() { printf '[systemtest build %s] %s\n' "$(date +%H:%M:%S)" "$*"; }

rm -rf "$WORK"
mkdir -p "$WORK"

# Guest packages: what Raspberry Pi OS trixie has that the service and the tests use, what
# install.sh asks apt for (the guest has no network: espeak-ng and alsa-utils for launcher-voice
# are installed here, as a Pi would download them), and the toolchain for the module (kept in
# the image: removing it costs more time than the space).
PACKAGES=(
    systemd-sysv udev dbus kmod procps util-linux login passwd sudo less
    python3 python3-venv python3-pytest gpiod apt-utils espeak-ng alsa-utils
    linux-image-amd64 initramfs-tools
    linux-headers-amd64 linux-source make gcc xz-utils swig python3-dev python3-setuptools
)

# Debian has no python3-lgpio (Raspberry Pi OS's archive has): the image gets one built from
# PyPI's lgpio sdist, in a local apt archive, so that install.sh's apt-get finds it as on a Pi.
LGPIO=lgpio==0.2.2.0
step "downloading the $LGPIO sdist from PyPI"
mkdir -p "$WORK/lgpio"
python3 -m pip download --quiet --no-deps --no-binary=:all: --dest "$WORK/lgpio" "$LGPIO"

step "debootstrapping Debian trixie with mmdebstrap (downloads about 300 MB; the longest step)"
mmdebstrap --variant=apt --components=main \
    --include="$(IFS=,; echo "${PACKAGES[*]}")" \
    --customize-hook="cp -a '$HERE/image/.' \"\$1/\"" \
    --customize-hook="cp '$HERE/gpiosim/Kbuild' \"\$1/root/\"" \
    --customize-hook="cp '$WORK'/lgpio/*.tar.gz \"\$1/root/\"" \
    --customize-hook="chroot \"\$1\" sh /root/setup-image.sh" \
    trixie "$ROOTFS" "$MIRROR"

KVER=$(cat "$ROOTFS/root/kernel-version")
step "kernel $KVER; gpio-sim module built: $(ls "$ROOTFS/lib/modules/$KVER/extra/")"
cp "$ROOTFS/boot/vmlinuz-$KVER" "$WORK/vmlinuz"
cp "$ROOTFS/boot/initrd.img-$KVER" "$WORK/initrd.img"
echo "$KVER" > "$WORK/kernel-version"

step "making the ext4 root image"
mkfs.ext4 -q -F -L root -d "$ROOTFS" "$WORK/rootfs.img" 4G
rm -rf "$ROOTFS"
rm -rf "$OUT"
mv "$WORK" "$OUT"
step "done: $OUT"
