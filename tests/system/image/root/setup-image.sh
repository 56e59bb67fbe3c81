#!/bin/sh
# Runs inside the trixie chroot at the end of tests/system/build.sh (on the host, never in the
# emulated guest): builds the gpio-sim module and turns the chroot into the test machine.
set -eu

KVER=$(ls /lib/modules | sort -V | tail -n 1)
echo "$KVER" > /root/kernel-version

echo "[setup-image] building gpio-sim + irq_sim for $KVER from $(ls /usr/src/linux-source-*.tar.xz)"
mkdir -p /root/gpiosim
cd /root/gpiosim
mv /root/Kbuild .
src=$(ls /usr/src/linux-source-*.tar.xz | sort -V | tail -n 1)
top=$(basename "$src" .tar.xz)
tar -xJf "$src" --strip-components=3 "$top/drivers/gpio/gpio-sim.c" "$top/drivers/gpio/gpiolib.h"
tar -xJf "$src" --strip-components=3 "$top/kernel/irq/irq_sim.c"
# Debian's kernel does not export irq_to_desc to modules; generic_handle_irq (exported) looks
# the descriptor up and calls the same simple-irq flow handler that irq_sim installs.
sed -i 's/handle_simple_irq(irq_to_desc(\([a-z_]*\)))/generic_handle_irq(\1)/' irq_sim.c
# A module needs a licence; built in, irq_sim.c had no need of one.
grep -q MODULE_LICENSE irq_sim.c || printf '\n#include <linux/module.h>\nMODULE_LICENSE("GPL");\n' >> irq_sim.c
make -s -C "/lib/modules/$KVER/build" M=/root/gpiosim modules
install -D -m 0644 gpiosim.ko "/lib/modules/$KVER/extra/gpiosim.ko"
depmod "$KVER"
cd /
rm -rf /root/gpiosim /usr/src/linux-source-*.tar.xz

echo "[setup-image] python3-lgpio from PyPI's sdist, into a local apt archive"
mkdir -p /root/lgpio/stage/DEBIAN /root/lgpio/stage/usr/lib/python3/dist-packages /var/local/pi-archive
cd /root/lgpio
tar -xzf /root/lgpio-*.tar.gz
version=$(ls /root/lgpio-*.tar.gz | sed 's/.*lgpio-\(.*\)\.tar\.gz/\1/')
# PYPI=1: the sdist statically links its own copy of the lg C library, as the wheels do.
(cd "lgpio-$version" && PYPI=1 python3 setup.py -q build > /dev/null)
cp lgpio-"$version"/build/lib*/* stage/usr/lib/python3/dist-packages/
cat > stage/DEBIAN/control << CONTROL
Package: python3-lgpio
Version: $version-0systemtest
Architecture: amd64
Maintainer: card-launcher system tests <root@localhost>
Depends: python3 (>= 3.13), python3 (<< 3.14)
Section: python
Priority: optional
Description: lgpio for Python 3, built from PyPI's sdist
 Stands in for Raspberry Pi OS's package of the same name in the system-test VM.
CONTROL
dpkg-deb --build --root-owner-group stage "/var/local/pi-archive/python3-lgpio_${version}-0systemtest_amd64.deb" > /dev/null
cd /var/local/pi-archive
apt-ftparchive packages . > Packages
apt-ftparchive release . > Release
cd /
rm -rf /root/lgpio /root/lgpio-*.tar.gz

echo "[setup-image] configuring the test machine"
echo cardlauncher-vm > /etc/hostname
printf '127.0.0.1 localhost\n127.0.1.1 cardlauncher-vm\n' > /etc/hosts
cat > /etc/fstab << 'FSTAB'
/dev/vda  /             ext4  defaults,noatime                      0 1
checkout  /mnt/checkout 9p    trans=virtio,version=9p2000.L,ro,nofail 0 0
results   /mnt/results  9p    trans=virtio,version=9p2000.L,nofail  0 0
wheels    /mnt/wheels   9p    trans=virtio,version=9p2000.L,ro,nofail 0 0
FSTAB
mkdir -p /mnt/checkout /mnt/results /mnt/wheels
# Offline: no apt sources (apt-get update then has nothing to fetch), pip takes the wheels the
# host downloaded for this checkout's dependencies.
rm -f /etc/apt/sources.list /etc/apt/sources.list.d/*
echo 'deb [trusted=yes] file:/var/local/pi-archive ./' > /etc/apt/sources.list.d/pi-standin.list
printf '[global]\nno-index = true\nfind-links = /mnt/wheels\n' > /etc/pip.conf

passwd -d root
# The maker who runs `sudo systemd/install.sh`, and someone who is not in the service's group.
useradd --create-home --shell /bin/bash maker
useradd --create-home --shell /bin/bash stranger
echo 'maker ALL=(ALL) NOPASSWD:ALL' > /etc/sudoers.d/maker
# Raspberry Pi OS has a gpio group that owns the GPIO chips.
groupadd --system gpio

# Boot straight to a root shell on the serial console (make systemtest-shell).
mkdir -p /etc/systemd/system/serial-getty@ttyS0.service.d
printf '[Service]\nExecStart=\nExecStart=-/sbin/agetty --autologin root --keep-baud 115200 %%I $TERM\n' \
    > /etc/systemd/system/serial-getty@ttyS0.service.d/autologin.conf
systemctl enable gpio-sim-chip.service systemtest-run.service
systemctl mask apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer fstrim.timer \
    man-db.timer dpkg-db-backup.timer systemd-timesyncd.service 2> /dev/null || true
rm -f /root/setup-image.sh
