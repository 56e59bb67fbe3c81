#!/usr/bin/env bash
# Install launcherd and its clients (launcher-game, launcher-web, launcher-voice) as systemd services
# on Raspberry Pi OS (Bookworm or Trixie) or Debian on a Pi, from a checkout.
#
#   sudo systemd/install.sh              install, or update after `git pull`; safe to run again
#   sudo systemd/install.sh --uninstall  remove everything but the config and the state
#   systemd/install.sh --dry-run [...]   print every action and change nothing (any user)
#   sudo systemd/install.sh --lgpio-from-pypi   where apt has no python3-lgpio (Debian's archive):
#                                        build lgpio from PyPI into the service's venv instead
#
# Every action goes through `run`, which prints it and, unless --dry-run, does it.
set -euo pipefail

SERVICE=launcherd.service  # the daemon; any other systemd/*.service of the checkout talks to it
ACCOUNT=card-launcher   # the service's user and group; group members may use launcherctl
GPIO_GROUP=gpio         # owns /dev/gpiochip* and /dev/gpiomem on Raspberry Pi OS
# python3-lgpio from apt: PyPI has no lgpio wheels for Python 3.13 (Trixie), and the venv sees it
# through --system-site-packages. gpiod's gpioset is ExecStopPost='s first step (motor-pins-low).
# espeak-ng and alsa-utils (aplay) are launcher-voice's voice and player.
APT_PACKAGES=(python3-venv python3-lgpio gpiod espeak-ng alsa-utils)
# With --lgpio-from-pypi, in place of python3-lgpio: what pip needs to build lgpio's source
# (Python 3.13 has no wheel); PYPI=1 makes it link its own copy of the lg library.
LGPIO_BUILD_PACKAGES=(swig python3-dev gcc make)
LGPIO_FROM_PYPI=false
# The table page's unit, and where launcher-web listens when its ExecStart= gives no --listen
# (DEFAULT_LISTEN in controller/web/server.py).
WEB_SERVICE=launcher-web.service
WEB_DEFAULT_LISTEN=0.0.0.0:8080
# The game's process (controller/, beside launcherd since issue #38), and its files: its log (with
# SQLite's -wal and -shm beside it, and any copies set aside as damaged) and the join code. They
# were in launcherd's state directory before; they are moved once into the game's own.
GAME_SERVICE=launcher-game.service
GAME_LOG=game.sqlite3
GAME_JOIN_CODE=join-code

# CARD_LAUNCHER_ROOT prefixes every file this script reads or writes, so that a dry run can be
# pointed at a scratch tree (the test suite does). Only for --dry-run: the unit names the real
# paths, so a real install into another root would not run.
ROOT=${CARD_LAUNCHER_ROOT:-}
VENV=$ROOT/opt/card-launcher
CONFIG_DIR=$ROOT/etc/card-launcher
CONFIG=$CONFIG_DIR/launcher.toml
STATE_DIR=$ROOT/var/lib/card-launcher
GAME_STATE_DIR=$ROOT/var/lib/launcher-game  # StateDirectory= of launcher-game.service
UNIT_DIR=$ROOT/etc/systemd/system
UNIT=$UNIT_DIR/$SERVICE
DROPIN_DIR=$UNIT.d
BIN_DIR=$ROOT/usr/local/bin
# ExecStopPost='s first step and the pins it drives low (generated from the config at each run).
LIBEXEC=$VENV/libexec
NATIVE_STEP=$LIBEXEC/motor-pins-low
NATIVE_PINS=$LIBEXEC/motor-pins
# Debian's own images have no rule giving the GPIO chips to the gpio group (Raspberry Pi OS has).
UDEV_RULE=$ROOT/etc/udev/rules.d/60-card-launcher-gpio.rules
# Debian's raspi-firmware regenerates config.txt at every kernel update from its files in
# /etc/default: config.txt says so ("Do not modify this file"); this one is appended to it.
RASPI_FIRMWARE_CUSTOM=$ROOT/etc/default/raspi-firmware-custom
RASPI_FIRMWARE_HOOK=$ROOT/etc/kernel/postinst.d/z50-raspi-firmware
# The boot setting that makes a released GPIO fall back to its pull (Raspberry Pi kernels keep
# it driven), and the kernel parameters it sets, which say whether this kernel has it:
# persist_gpio_outputs (Y: kept), named strict_gpiod (Y: released) in the first kernels that had it.
STRICT_GPIOD=dtparam=strict_gpiod
PERSIST_PARAMS=("$ROOT/sys/module/pinctrl_bcm2835/parameters/persist_gpio_outputs"
    "$ROOT/sys/module/pinctrl_rp1/parameters/persist_gpio_outputs")
STRICT_PARAMS=("$ROOT/sys/module/pinctrl_bcm2835/parameters/strict_gpiod"
    "$ROOT/sys/module/pinctrl_rp1/parameters/strict_gpiod")
# systemd feeds the board's hardware watchdog with this drop-in: a kernel that freezes stops
# feeding it and the watchdog resets the Pi, whose GPIOs then fall back to their boot state
# (the motor pins held low by config.txt's gpio= line below). The Pi's watchdog (bcm2835-wdt,
# and the Pi 5's) cannot be set longer than about 15 s.
WATCHDOG_CONF=$ROOT/etc/systemd/system.conf.d/card-launcher-watchdog.conf
RUNTIME_WATCHDOG_SEC=10s

# The block this script owns in config.txt. config.txt has no end-of-line comments, so the
# block is fenced by whole comment lines; [all] ends any [pi4]-style filter above it.
BOOT_BEGIN="# >>> card-launcher: motor pins driven low from early boot (systemd/install.sh)"
BOOT_END="# <<< card-launcher"

SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DRY_RUN=false

say() { echo "==> $*"; }
die() { echo "install.sh: $*" >&2; exit 1; }

run() {
    local arg line="+"
    for arg in "$@"; do
        if [[ $arg =~ ^[][A-Za-z0-9_./:=,@%+-]+$ ]]; then line+=" $arg"; else line+=" '$arg'"; fi
    done
    echo "$line"
    if ! $DRY_RUN; then "$@"; fi
}

# Like run, for a step this script does itself: prints what it does (not a function's name).
run_step() {
    local what=$1
    shift
    echo "+ $what"
    if ! $DRY_RUN; then "$@"; fi
}

# The units of the checkout, launcherd first: the others (launcher-web, launcher-voice, ...)
# are clients of its socket and are ordered after it by their own After=.
units() {
    local file
    echo "$SERVICE"
    for file in "$SRC"/systemd/*.service; do
        if [[ -e $file && ${file##*/} != "$SERVICE" ]]; then echo "${file##*/}"; fi
    done
}

# The closing line must not claim a change that a dry run did not make.
finish() {
    echo
    if $DRY_RUN; then say "Dry run: nothing was changed"; else say "$1"; fi
}

# Where launcher-web listens, HOST:PORT: the --listen of the last ExecStart= in its unit and in
# the drop-ins of `systemctl edit launcher-web` (which the install keeps).
web_listen() {
    local file line listen=$WEB_DEFAULT_LISTEN files=("$SRC/systemd/$WEB_SERVICE")
    if [[ -d $UNIT_DIR/$WEB_SERVICE.d ]]; then files+=("$UNIT_DIR/$WEB_SERVICE.d"/*.conf); fi
    for file in "${files[@]}"; do
        [[ -f $file ]] || continue
        while IFS= read -r line; do
            if [[ $line =~ ^ExecStart=(.+)$ ]]; then
                listen=$WEB_DEFAULT_LISTEN
                if [[ ${BASH_REMATCH[1]} =~ --listen[=[:space:]]+([^[:space:]]+) ]]; then
                    listen=${BASH_REMATCH[1]}
                fi
            fi
        done < "$file"
    done
    echo "$listen"
}

# The last lines of an install: the table page's address on the table's network, and the join code.
page_lines() {
    local listen host port name address found=false
    listen=$(web_listen)
    host=${listen%:*} port=${listen##*:}
    host=${host#[} host=${host%]}
    echo "The table page, for the phones on the table's network (the Pi's Wi-Fi or Ethernet):"
    case $host in
        0.0.0.0 | :: | "")
            name=$(hostname 2> /dev/null || true)
            echo "    http://${name:-raspberrypi}.local:$port/"
            for address in $(hostname -I 2> /dev/null || true); do
                if [[ $address != *:* ]]; then echo "    http://$address:$port/"; found=true; fi
            done
            if ! $found; then
                echo "    http://ADDRESS:$port/ (no address yet: put the Pi on the table's network, then: hostname -I)"
            fi
            echo "    (a phone that cannot open the .local name takes the address with the numbers)" ;;
        127.* | ::1 | localhost)
            echo "    only on the Pi itself, http://$listen/ (launcher-web --listen $listen):"
            echo "    to let the phones in, sudo systemctl edit launcher-web with --listen 0.0.0.0:$port" ;;
        *:*) echo "    http://[$host]:$port/" ;;
        *) echo "    http://$host:$port/" ;;
    esac
    echo "    the table display, for a tablet or TV in the middle of the table: the same address with ?view=table"
    echo "The join code, which the page asks for before any action:"
    echo "    launcherctl game code       (--qr: a QR code of the page's address with the code, to scan;"
    echo "                                 sudo launcherctl game code until you have logged in again)"
    echo "    or, once one phone has it, the page's \"Show the QR code\" for the others to scan"
}

usage() {
    sed -n '2,9s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"
}

# The pins that make something move, then the config's [pins] chip ("12,13,16,26 auto"): the
# launcher's motor driver inputs and the enable gate's heartbeat, or the blaster's release
# actuator with [device] kind = "blaster", of the config that the service will read: the
# installed one if present (it is never overwritten), else the default about to be installed. Fails on a config that does not
# load, before anything is changed. The system python3 is enough: firmware.config needs only
# the standard library; -B keeps the checkout free of __pycache__. The layers a config may name
# are those the project is about to install, declared in the checkout's pyproject.toml (the
# config's own check looks at installed packages, and nothing is installed yet).
moving_pins() {
    local config=$CONFIG
    [[ -e $config ]] || config=$SRC/firmware/launcher.toml
    PYTHONPATH=$SRC python3 -B -c '
import sys, tomllib
import firmware.config.checks
from firmware.config import ConfigError, load_config, moving_pins
from firmware.config.checks import EXTENSION_GROUP
with open(sys.argv[2], "rb") as file:
    declared = sorted(tomllib.load(file)["project"].get("entry-points", {}).get(EXTENSION_GROUP, {}))
firmware.config.checks.installed_extensions = lambda: declared
try:
    config = load_config(sys.argv[1])
except ConfigError as exc:
    sys.exit(f"install.sh: fix the config first: {exc}")
print(",".join(map(str, moving_pins(config))), config.pins.chip)
' "$config" "$SRC/pyproject.toml"
}

# config.txt moved to the FAT partition's /boot/firmware with Bookworm; /boot/config.txt is
# where it was before (on Bookworm it is a stub that says so).
boot_config() {
    local file
    for file in "$ROOT/boot/firmware/config.txt" "$ROOT/boot/config.txt"; do
        if [[ -f $file ]]; then echo "$file"; return; fi
    done
}

boot_block() { printf '%s\n' "$BOOT_BEGIN" "[all]" "$@" "$BOOT_END"; }

# Whether config.txt is Debian's raspi-firmware's: regenerated at every kernel update from the
# files in /etc/default that it names ("Do not modify this file").
debian_firmware() { grep -q 'raspi-firmware-custom' "$1"; }

# Prints config.txt without this script's block; fails if the fences are not a clean pair, so
# a hand-edited block is never cut to the end of the file.
strip_boot_block() {
    awk -v begin="$BOOT_BEGIN" -v end="$BOOT_END" '
        $0 == begin { if (inside) exit 1; inside = 1; next }
        $0 == end   { if (!inside) exit 1; inside = 0; next }
        !inside     { print }
        END         { if (inside) exit 1 }' "$1"
}

# Replaces the block (or appends it) through a temporary file renamed over config.txt, so a
# power cut leaves the old file or the new one, never half of one.
write_boot_block() {
    local file=$1 tmp
    shift
    tmp=$(mktemp "$file.XXXXXX")
    { if [[ -e $file ]]; then strip_boot_block "$file"; fi; boot_block "$@"; } > "$tmp"
    mv "$tmp" "$file"
}

remove_boot_block() {
    local file=$1 tmp
    tmp=$(mktemp "$file.XXXXXX")
    strip_boot_block "$file" > "$tmp"
    mv "$tmp" "$file"
}

# The build requirements of the checkout ([build-system] requires of pyproject.toml), one a line.
build_requirements() {
    python3 -B -c '
import sys, tomllib
with open(sys.argv[1], "rb") as file:
    print("\n".join(tomllib.load(file)["build-system"]["requires"]))
' "$1/pyproject.toml"
}

# Installs the checkout into the venv, not editable: the service must not depend on the checkout.
# pip builds in the source tree (build/, *.egg-info/): as root, that would leave root-owned files
# in the maker's checkout and break their next `pip install -e .`, so a clean copy is built.
# Without network once everything is installed: pip's build isolation would fetch setuptools at
# every run, so the build requirements go into the venv itself (the first run fetches them, a
# later run finds them satisfied) and the project is built against them (--no-build-isolation);
# dependencies already installed are not looked up again.
pip_install_checkout() {
    local src=$1 venv=$2 copy requirements
    mapfile -t requirements < <(build_requirements "$src")
    PIP_DISABLE_PIP_VERSION_CHECK=1 "$venv/bin/python" -m pip install "${requirements[@]}" || return 1
    copy=$(mktemp -d)
    tar -C "$src" --exclude=./.git --exclude=./.venv --exclude=./build --exclude='*.egg-info' \
        --exclude=__pycache__ --exclude=./.pytest_cache --exclude=./.hypothesis -cf - . \
        | tar -C "$copy" -xf -
    PIP_DISABLE_PIP_VERSION_CHECK=1 "$venv/bin/python" -m pip install --no-build-isolation --upgrade "$copy" \
        || { rm -rf "$copy"; return 1; }
    rm -rf "$copy"
}

# The apt packages this install needs: APT_PACKAGES, with --lgpio-from-pypi lgpio's build tools in
# place of python3-lgpio.
wanted_packages() {
    local package
    for package in "${APT_PACKAGES[@]}"; do
        if [[ $package == python3-lgpio ]] && $LGPIO_FROM_PYPI; then
            printf '%s\n' "${LGPIO_BUILD_PACKAGES[@]}"
        else
            echo "$package"
        fi
    done
}

# Whether apt's lists hold the package (a candidate to install); without apt-cache, assume so.
apt_has() {
    command -v apt-cache > /dev/null || return 0
    apt-cache policy "$1" 2> /dev/null | grep -q 'Candidate: [^(]'
}

# Where apt has no python3-lgpio (Debian's own archive), the way on, before anything is installed.
check_lgpio_available() {
    if $LGPIO_FROM_PYPI || apt_has python3-lgpio; then return 0; fi
    echo "install.sh: apt has no python3-lgpio on this system (Raspberry Pi OS's archive has it," \
        "Debian's own archive does not), and launcherd drives the pins through lgpio." >&2
    echo "The way on: build lgpio from PyPI's source into the service's own environment:" >&2
    echo "    sudo $0 --lgpio-from-pypi" >&2
    echo "(it installs ${LGPIO_BUILD_PACKAGES[*]} from apt to build it, a few minutes on a Pi;" \
        "run it the same way for every later update)." >&2
    exit 1
}

# lgpio into the venv from PyPI: a wheel up to Python 3.12, built from its source on 3.13.
pip_install_lgpio() {
    if "$VENV/bin/python" -c 'import lgpio; lgpio.SET_PULL_NONE' 2> /dev/null; then return 0; fi  # a re-run: no network
    PYPI=1 PIP_DISABLE_PIP_VERSION_CHECK=1 "$VENV/bin/python" -m pip install lgpio
}

# The apt packages this install needs that are not installed, one a line (all without dpkg).
missing_packages() {
    local package
    for package in $(wanted_packages); do
        if ! dpkg-query -W -f='${db:Status-Abbrev}' "$package" 2> /dev/null | grep -q '^ii'; then
            echo "$package"
        fi
    done
}

# The boot block's lines into FILE (config.txt, or raspi-firmware's custom file); true if it changed.
configure_boot() {
    local file=$1 listed
    shift
    if [[ -e $file && "$(strip_boot_block "$file"; boot_block "$@")" == "$(cat "$file")" ]]; then
        say "$file already drives the motor pins low at boot ($*)"
        return 1
    fi
    say "Driving the motor pins low from early boot: $* in $file (from the next boot)"
    listed=$(printf ", '%s'" "$BOOT_BEGIN" "[all]" "$@" "$BOOT_END")
    run_step "write the lines ${listed#, } into $file" write_boot_block "$file" "$@"
}

# Whether this kernel keeps a released GPIO driven: "keeps", "releases" (to its pull), or
# "unknown" (no persist_gpio_outputs parameter: a kernel from before strict_gpiod).
released_lines() {
    local param
    for param in "${PERSIST_PARAMS[@]}"; do
        if [[ -r $param ]]; then
            if [[ $(< "$param") == [Nn0]* ]]; then echo releases; else echo keeps; fi
            return
        fi
    done
    for param in "${STRICT_PARAMS[@]}"; do
        if [[ -r $param ]]; then
            if [[ $(< "$param") == [Nn0]* ]]; then echo keeps; else echo releases; fi
            return
        fi
    done
    echo unknown
}

# The boot lines where this OS keeps them: config.txt on Raspberry Pi OS, with dtparam=strict_gpiod
# so that a line launcherd leaves falls back to its pull-down; Debian's raspi-firmware-custom, from
# which config.txt is regenerated (Debian's kernel already releases lines to their pulls).
configure_boot_lines() {
    local config_txt=$1 gpio_line=$2 released
    released=$(released_lines)
    if [[ -z $config_txt ]]; then
        say "No config.txt found (not a Pi, or not Raspberry Pi OS?). On a Pi, add these lines to it by hand:"
        printf '    %s\n' "$gpio_line" "$STRICT_GPIOD"
        return
    fi
    if debian_firmware "$config_txt"; then
        if configure_boot "$RASPI_FIRMWARE_CUSTOM" "$gpio_line" \
            || ! grep -qxF "$BOOT_BEGIN" "$config_txt"; then
            say "Debian's raspi-firmware writes config.txt: regenerating it with these lines"
            if [[ ! -x $RASPI_FIRMWARE_HOOK ]] \
                || ! run env DEB_MAINT_PARAMS=configure "${RASPI_FIRMWARE_HOOK#$ROOT}" "$(uname -r)"; then
                say "config.txt takes the lines at the next kernel update (or: sudo dpkg-reconfigure raspi-firmware)"
            fi
        fi
        if [[ $released == keeps ]]; then
            say "WARNING: this kernel keeps released GPIOs driven: a dead launcherd leaves the motor line as it"
            say "was until ExecStopPost= drives it low. Add pinctrl_bcm2835.persist_gpio_outputs=n to"
            say "/etc/default/raspi-extra-cmdline to have them fall back to their pulls."
        else
            say "Debian's kernel returns a released GPIO to an input: when launcherd dies, the pull-downs stop the motor"
        fi
        return
    fi
    configure_boot "$config_txt" "$gpio_line" "$STRICT_GPIOD" || true
    case $released in
        releases) say "This kernel already lets released GPIOs fall back to their pulls (strict_gpiod)" ;;
        keeps) say "From the next boot ($STRICT_GPIOD) a GPIO launcherd leaves falls back to its pull-down at once" ;;
        *) say "This kernel ($(uname -r)) predates strict_gpiod (added to Raspberry Pi's 6.6 kernels in April 2024):"
           say "until an update (sudo apt full-upgrade) a motor line keeps its last level when launcherd dies," \
               "until ExecStopPost= drives it low (milliseconds)" ;;
    esac
}

udev_rule() {
    printf '%s\n' "# Written by the card launcher's systemd/install.sh: the $GPIO_GROUP group (launcherd's) owns" \
        "# the GPIO chips, as on Raspberry Pi OS; Debian's own images have no such rule." \
        "SUBSYSTEM==\"gpio\", KERNEL==\"gpiochip[0-9]*\", GROUP=\"$GPIO_GROUP\", MODE=\"0660\""
}

write_udev_rule() { udev_rule > "$UDEV_RULE"; }

configure_udev() {
    if [[ -f $UDEV_RULE && "$(cat "$UDEV_RULE")" == "$(udev_rule)" ]]; then
        say "The $GPIO_GROUP group owns /dev/gpiochip* ($UDEV_RULE)"
        return
    fi
    say "Giving /dev/gpiochip* to the $GPIO_GROUP group with a udev rule (Debian's own images have none)"
    run install -d -m 0755 "${UDEV_RULE%/*}"
    run_step "write 'SUBSYSTEM==\"gpio\", KERNEL==\"gpiochip[0-9]*\", GROUP=\"$GPIO_GROUP\", MODE=\"0660\"' into $UDEV_RULE" \
        write_udev_rule
    if ! { run udevadm control --reload && run udevadm trigger --subsystem-match=gpio --action=change; }; then
        say "udev did not take the rule now: it applies from the next boot"
    fi
}

native_pins() {
    printf '%s\n' "# Written by systemd/install.sh from ${CONFIG#$ROOT}: what ExecStopPost='s first step" \
        "# (motor-pins-low) drives low with gpioset. Run install.sh again after moving a motor pin." \
        "chip=$1" "pins=${2//,/ }"
}

write_native_pins() { native_pins "$1" "$2" > "$NATIVE_PINS"; }

# ExecStopPost='s first step, with no Python start: the script and the pins it drives low.
configure_native_step() {
    local chip=$1 pins=$2
    run install -d -m 0755 "$LIBEXEC"
    run install -m 0755 "$SRC/systemd/motor-pins-low" "$NATIVE_STEP"
    if [[ -f $NATIVE_PINS && "$(cat "$NATIVE_PINS")" == "$(native_pins "$chip" "$pins")" ]]; then
        say "ExecStopPost= drives GPIO $pins low with gpioset first ($NATIVE_PINS)"
    else
        run_step "write 'chip=$chip' and 'pins=${pins//,/ }' into $NATIVE_PINS" write_native_pins "$chip" "$pins"
    fi
}

watchdog_conf() {
    printf '%s\n' "# Written by the card launcher's systemd/install.sh: a frozen kernel resets the Pi." \
        "[Manager]" "RuntimeWatchdogSec=$RUNTIME_WATCHDOG_SEC"
}

write_watchdog_conf() { watchdog_conf > "$WATCHDOG_CONF"; }

configure_watchdog() {
    if [[ -f $WATCHDOG_CONF && "$(cat "$WATCHDOG_CONF")" == "$(watchdog_conf)" ]]; then
        say "systemd already feeds the hardware watchdog ($WATCHDOG_CONF)"
        return
    fi
    say "Letting systemd feed the hardware watchdog (RuntimeWatchdogSec=$RUNTIME_WATCHDOG_SEC, from the next boot)"
    run install -d -m 0755 "${WATCHDOG_CONF%/*}"
    run_step "write '[Manager]' and 'RuntimeWatchdogSec=$RUNTIME_WATCHDOG_SEC' into $WATCHDOG_CONF" \
        write_watchdog_conf
}

# The game's files still in launcherd's state directory (an install from before launcher-game), one
# a line, in the order they are moved: the log's -wal and -shm before the log itself, so that a move
# cut short never leaves the log where the game reads it without the -wal that completes it; the
# run after a cut finishes the move. The log's family moves only while the game's directory has no
# log of its own (never a -wal beside another log); the join code only where the game has none.
game_files_to_move() {
    local name path
    if [[ ! -e $GAME_STATE_DIR/$GAME_LOG ]]; then
        for name in "$GAME_LOG-wal" "$GAME_LOG-shm" "$GAME_LOG"; do
            if [[ -e $STATE_DIR/$name && ! -e $GAME_STATE_DIR/$name ]]; then echo "$name"; fi
        done
    fi
    for path in "$STATE_DIR/$GAME_LOG".damaged-*; do
        if [[ -e $path && ! -e $GAME_STATE_DIR/${path##*/} ]]; then echo "${path##*/}"; fi
    done
    if [[ -e $STATE_DIR/$GAME_JOIN_CODE && ! -e $GAME_STATE_DIR/$GAME_JOIN_CODE ]]; then echo "$GAME_JOIN_CODE"; fi
}

# Moves the game's files into its own state directory, with launcherd (an older launcherd runs the game
# inside its own process and holds the log open) and the game stopped: a renamed open SQLite file can lose
# what its process writes next. Before the game's unit is enabled, so that nothing starts it on a
# half-moved directory after a power cut; the next run finishes.
move_game_state() {
    local files name
    mapfile -t files < <(game_files_to_move)
    if [[ -e $STATE_DIR/$GAME_LOG && -e $GAME_STATE_DIR/$GAME_LOG ]]; then
        say "WARNING: two game logs: launcher-game uses ${GAME_STATE_DIR#$ROOT}/$GAME_LOG; the older" \
            "${STATE_DIR#$ROOT}/$GAME_LOG is left where it is (remove it yourself once you no longer want it)"
    fi
    if [[ ${#files[@]} -eq 0 ]]; then return; fi
    say "Moving the game's state (${files[*]}) from $STATE_DIR to its own $GAME_STATE_DIR"
    run systemctl stop "$GAME_SERVICE" "$SERVICE"
    run install -d -o "$ACCOUNT" -g "$ACCOUNT" -m 0750 "$GAME_STATE_DIR"
    for name in "${files[@]}"; do run mv -n "$STATE_DIR/$name" "$GAME_STATE_DIR/$name"; done
}

install_service() {
    [[ -f $SRC/pyproject.toml && -f $SRC/systemd/$SERVICE && -f $SRC/firmware/launcher.toml ]] \
        || die "run me from a checkout of the card launcher (no pyproject.toml in $SRC)"
    # Everything that can fail on its own is checked before the first change.
    local moving pins chip boot_file file
    moving=$(moving_pins)
    pins=${moving% *} chip=${moving##* }
    boot_file=$(boot_config)
    for file in "$boot_file" "$RASPI_FIRMWARE_CUSTOM"; do
        if [[ -f $file ]] && ! strip_boot_block "$file" > /dev/null; then
            die "$file has a broken card-launcher block:" \
                "remove the lines from '$BOOT_BEGIN' to '$BOOT_END' by hand"
        fi
    done

    say "Installing launcherd from $SRC"
    # apt only when a package is missing: a re-run on a Pi without network needs none.
    local packages
    mapfile -t packages < <(wanted_packages)
    if [[ -z $(missing_packages) ]]; then
        say "Installed from apt already: ${packages[*]}"
    else
        run apt-get update
        check_lgpio_available
        run apt-get install -y "${packages[@]}"
    fi

    if getent group "$ACCOUNT" > /dev/null; then
        say "Group $ACCOUNT exists"
    else
        run groupadd --system "$ACCOUNT"
    fi
    if ! getent group "$GPIO_GROUP" > /dev/null; then
        say "No $GPIO_GROUP group (Debian's own image?): creating it"
        run groupadd --system "$GPIO_GROUP"
    fi
    configure_udev
    if id -u "$ACCOUNT" > /dev/null 2>&1; then
        say "User $ACCOUNT exists"
    else
        run useradd --system --gid "$ACCOUNT" --no-create-home --home-dir /nonexistent \
            --shell /usr/sbin/nologin --comment "card launcher daemon" "$ACCOUNT"
    fi
    # The maker who ran sudo gets to use launcherctl (from their next login). A dry run by a
    # normal user shows the step for that user, as `sudo` would do it.
    local maker=${SUDO_USER:-}
    if [[ -z $maker ]] && $DRY_RUN && [[ $EUID -ne 0 ]]; then maker=$(whoami); fi
    if [[ -n $maker && $maker != root ]]; then
        if id -nG "$maker" 2> /dev/null | tr ' ' '\n' | grep -qx "$ACCOUNT"; then
            say "$maker is in group $ACCOUNT"
        else
            say "Letting $maker use launcherctl (from their next login)"
            run usermod -aG "$ACCOUNT" "$maker"
        fi
    else
        say "To let a user run launcherctl: sudo usermod -aG $ACCOUNT USER (then log in again)"
    fi

    if [[ -x $VENV/bin/python ]]; then
        say "Virtual environment $VENV exists"
    else
        run python3 -m venv --system-site-packages "$VENV"
    fi
    run_step "pip install a clean copy of $SRC into $VENV (not editable)" pip_install_checkout "$SRC" "$VENV"
    if $LGPIO_FROM_PYPI; then
        run_step "pip install lgpio into $VENV (built from its source where PyPI has no wheel)" pip_install_lgpio
    fi
    run ln -sfn "$VENV/bin/launcherctl" "$BIN_DIR/launcherctl"
    run ln -sfn "$VENV/bin/launcherd" "$BIN_DIR/launcherd"
    configure_native_step "$chip" "$pins"

    run install -d -m 0755 "$CONFIG_DIR"
    if [[ -e $CONFIG ]]; then
        say "Keeping your $CONFIG (never overwritten; the defaults are in $SRC/firmware/launcher.toml)"
    else
        run install -m 0644 "$SRC/firmware/launcher.toml" "$CONFIG"
    fi

    configure_boot_lines "$boot_file" "gpio=$pins=op,dl"
    configure_watchdog

    local unit all_units
    mapfile -t all_units < <(units)
    for unit in "${all_units[@]}"; do run install -m 0644 "$SRC/systemd/$unit" "$UNIT_DIR/$unit"; done
    run systemctl daemon-reload
    if [[ " ${all_units[*]} " == *" $GAME_SERVICE "* ]]; then move_game_state; fi
    for unit in "${all_units[@]}"; do run systemctl enable "$unit"; done
    # restart, not start: an update must replace the running daemon (and its clients).
    for unit in "${all_units[@]}"; do run systemctl restart "$unit"; done

    finish Installed
    cat << EOF
Check it:
    systemctl status launcherd launcher-game
    launcherctl status
    journalctl -u launcherd -u launcher-game -f
launcherctl works for root and members of the $ACCOUNT group (log in again after being added).
Settings: $CONFIG, then: sudo systemctl restart launcherd launcher-game
EOF
    if [[ " ${all_units[*]} " == *" $WEB_SERVICE "* ]]; then page_lines; fi
}

uninstall_service() {
    say "Removing the services, $VENV, the launcherctl and launcherd links, the $ACCOUNT user and" \
        "group, and the card-launcher lines of config.txt; keeping your config and the game state"
    # The clients first, launcherd last. Stopping launcherd runs the safe-off step, which needs
    # the venv: stop before removing it.
    local unit i all_units installed=()
    mapfile -t all_units < <(units)
    for ((i = ${#all_units[@]} - 1; i >= 0; i--)); do
        if [[ -e $UNIT_DIR/${all_units[i]} ]]; then installed+=("${all_units[i]}"); fi
    done
    if [[ ${#installed[@]} -gt 0 ]]; then
        for unit in "${installed[@]}"; do run systemctl disable --now "$unit"; done
        for unit in "${installed[@]}"; do run rm -f "$UNIT_DIR/$unit"; done
        run systemctl daemon-reload
    else
        say "No $UNIT installed"
    fi
    run rm -f "$BIN_DIR/launcherctl" "$BIN_DIR/launcherd"
    run rm -rf "$VENV"

    local boot_file
    boot_file=$(boot_config)
    if [[ -f $RASPI_FIRMWARE_CUSTOM ]] && grep -qxF "$BOOT_BEGIN" "$RASPI_FIRMWARE_CUSTOM"; then
        strip_boot_block "$RASPI_FIRMWARE_CUSTOM" > /dev/null \
            || die "$RASPI_FIRMWARE_CUSTOM has a broken card-launcher block: remove it by hand"
        run_step "remove the card-launcher lines ('$BOOT_BEGIN' to '$BOOT_END') from $RASPI_FIRMWARE_CUSTOM" \
            remove_boot_block "$RASPI_FIRMWARE_CUSTOM"
        say "config.txt loses them at its next regeneration (a kernel update, or: sudo dpkg-reconfigure raspi-firmware)"
    fi
    if [[ -n $boot_file ]] && grep -qxF "$BOOT_BEGIN" "$boot_file"; then
        strip_boot_block "$boot_file" > /dev/null \
            || die "$boot_file has a broken card-launcher block: remove it by hand"
        run_step "remove the card-launcher lines ('$BOOT_BEGIN' to '$BOOT_END') from $boot_file" \
            remove_boot_block "$boot_file"
    elif [[ -n $boot_file ]]; then
        say "$boot_file has no card-launcher lines"
    else
        say "No config.txt found (not Raspberry Pi OS?): no card-launcher lines to remove"
    fi

    if [[ -e $WATCHDOG_CONF ]]; then run rm -f "$WATCHDOG_CONF"; fi
    if [[ -e $UDEV_RULE ]]; then run rm -f "$UDEV_RULE"; fi

    if id -u "$ACCOUNT" > /dev/null 2>&1; then run userdel "$ACCOUNT"; else say "No user $ACCOUNT"; fi
    if getent group "$ACCOUNT" > /dev/null; then run groupdel "$ACCOUNT"; else say "No group $ACCOUNT"; fi

    finish Uninstalled
    cat << EOF
Kept, remove them yourself if you want:
    $CONFIG_DIR  (your config)
    $STATE_DIR  (launcherd's state: the latched halt, the outcome record)
    $GAME_STATE_DIR  (game and score state)
EOF
    if [[ -d $DROPIN_DIR ]]; then echo "    $DROPIN_DIR  (your overrides of the unit)"; fi
    echo "    the python3-lgpio, gpiod, espeak-ng and alsa-utils packages (other programs may use them)"
}

main() {
    local action=install arg
    for arg in "$@"; do
        case $arg in
            --dry-run) DRY_RUN=true ;;
            --uninstall) action=uninstall ;;
            --lgpio-from-pypi) LGPIO_FROM_PYPI=true ;;
            -h | --help) usage; return 0 ;;
            *) usage >&2; die "unknown option: $arg" ;;
        esac
    done
    if $DRY_RUN; then
        say "Dry run: printing every action, changing nothing"
    else
        [[ $EUID -eq 0 ]] || die "run me as root: sudo $0 $*"
        [[ -z $ROOT ]] || die "CARD_LAUNCHER_ROOT is for --dry-run only"
    fi
    "${action}_service"
}

# Sourced (by the tests) it only defines the functions.
if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
    main "$@"
fi
