#!/usr/bin/env bash
# Install launcherd as a systemd service on Raspberry Pi OS (Bookworm or Trixie), from a checkout.
#
#   sudo systemd/install.sh              install, or update after `git pull`; safe to run again
#   sudo systemd/install.sh --uninstall  remove everything but the config and the state
#   systemd/install.sh --dry-run [...]   print every action and change nothing (any user)
#
# Every action goes through `run`, which prints it and, unless --dry-run, does it.
set -euo pipefail

SERVICE=launcherd.service  # the daemon; any other systemd/*.service of the checkout talks to it
ACCOUNT=card-launcher   # the service's user and group; group members may use launcherctl
GPIO_GROUP=gpio         # owns /dev/gpiochip* and /dev/gpiomem on Raspberry Pi OS
# python3-lgpio from apt: PyPI has no lgpio wheels for Python 3.13 (Trixie), and the venv sees it
# through --system-site-packages. espeak-ng and alsa-utils (aplay) are launcher-voice's voice and player.
APT_PACKAGES=(python3-venv python3-lgpio espeak-ng alsa-utils)
# The table page's unit, and where launcher-web listens when its ExecStart= gives no --listen
# (DEFAULT_LISTEN in controller/web/server.py).
WEB_SERVICE=launcher-web.service
WEB_DEFAULT_LISTEN=0.0.0.0:8080

# CARD_LAUNCHER_ROOT prefixes every file this script reads or writes, so that a dry run can be
# pointed at a scratch tree (the test suite does). Only for --dry-run: the unit names the real
# paths, so a real install into another root would not run.
ROOT=${CARD_LAUNCHER_ROOT:-}
VENV=$ROOT/opt/card-launcher
CONFIG_DIR=$ROOT/etc/card-launcher
CONFIG=$CONFIG_DIR/launcher.toml
STATE_DIR=$ROOT/var/lib/card-launcher
UNIT_DIR=$ROOT/etc/systemd/system
UNIT=$UNIT_DIR/$SERVICE
DROPIN_DIR=$UNIT.d
BIN_DIR=$ROOT/usr/local/bin
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
    sed -n '2,6s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"
}

# The pins that make something move (the launcher's motor driver inputs, or the blaster's release
# actuator with [device] kind = "blaster") of the config that the service will read: the
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
print(",".join(map(str, moving_pins(config))))
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

boot_block() { printf '%s\n[all]\n%s\n%s\n' "$BOOT_BEGIN" "$1" "$BOOT_END"; }

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
    local file=$1 line=$2 tmp
    tmp=$(mktemp "$file.XXXXXX")
    { strip_boot_block "$file"; boot_block "$line"; } > "$tmp"
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

# The apt packages of APT_PACKAGES that are not installed, one a line (all of them without dpkg).
missing_packages() {
    local package
    for package in "${APT_PACKAGES[@]}"; do
        if ! dpkg-query -W -f='${db:Status-Abbrev}' "$package" 2> /dev/null | grep -q '^ii'; then
            echo "$package"
        fi
    done
}

configure_boot() {
    local file=$1 line=$2
    if [[ -z $file ]]; then
        say "No config.txt found (not Raspberry Pi OS?). Add this line to it by hand:"
        echo "    $line"
    elif [[ "$(strip_boot_block "$file"; boot_block "$line")" == "$(cat "$file")" ]]; then
        say "$file already drives the motor pins low at boot ($line)"
    else
        say "Driving the motor pins low from early boot: $line in $file (from the next boot)"
        run_step "write the lines '$BOOT_BEGIN', '[all]', '$line', '$BOOT_END' into $file" \
            write_boot_block "$file" "$line"
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

install_service() {
    [[ -f $SRC/pyproject.toml && -f $SRC/systemd/$SERVICE && -f $SRC/firmware/launcher.toml ]] \
        || die "run me from a checkout of the card launcher (no pyproject.toml in $SRC)"
    # Everything that can fail on its own is checked before the first change.
    local pins boot_file
    pins=$(moving_pins)
    boot_file=$(boot_config)
    if [[ -n $boot_file ]] && ! strip_boot_block "$boot_file" > /dev/null; then
        die "$boot_file has a broken card-launcher block:" \
            "remove the lines from '$BOOT_BEGIN' to '$BOOT_END' by hand"
    fi

    say "Installing launcherd from $SRC"
    # apt only when a package is missing: a re-run on a Pi without network needs none.
    if [[ -z $(missing_packages) ]]; then
        say "Installed from apt already: ${APT_PACKAGES[*]}"
    else
        run apt-get update
        run apt-get install -y "${APT_PACKAGES[@]}"
    fi

    if getent group "$ACCOUNT" > /dev/null; then
        say "Group $ACCOUNT exists"
    else
        run groupadd --system "$ACCOUNT"
    fi
    if ! getent group "$GPIO_GROUP" > /dev/null; then
        say "No $GPIO_GROUP group: not Raspberry Pi OS? Creating it; /dev/gpiochip* must belong to it"
        run groupadd --system "$GPIO_GROUP"
    fi
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
    run ln -sfn "$VENV/bin/launcherctl" "$BIN_DIR/launcherctl"
    run ln -sfn "$VENV/bin/launcherd" "$BIN_DIR/launcherd"

    run install -d -m 0755 "$CONFIG_DIR"
    if [[ -e $CONFIG ]]; then
        say "Keeping your $CONFIG (never overwritten; the defaults are in $SRC/firmware/launcher.toml)"
    else
        run install -m 0644 "$SRC/firmware/launcher.toml" "$CONFIG"
    fi

    configure_boot "$boot_file" "gpio=$pins=op,dl"
    configure_watchdog

    local unit all_units
    mapfile -t all_units < <(units)
    for unit in "${all_units[@]}"; do run install -m 0644 "$SRC/systemd/$unit" "$UNIT_DIR/$unit"; done
    run systemctl daemon-reload
    for unit in "${all_units[@]}"; do run systemctl enable "$unit"; done
    # restart, not start: an update must replace the running daemon (and its clients).
    for unit in "${all_units[@]}"; do run systemctl restart "$unit"; done

    finish Installed
    cat << EOF
Check it:
    systemctl status launcherd
    launcherctl status
    journalctl -u launcherd -f
launcherctl works for root and members of the $ACCOUNT group (log in again after being added).
Settings: $CONFIG, then: sudo systemctl restart launcherd
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

    if id -u "$ACCOUNT" > /dev/null 2>&1; then run userdel "$ACCOUNT"; else say "No user $ACCOUNT"; fi
    if getent group "$ACCOUNT" > /dev/null; then run groupdel "$ACCOUNT"; else say "No group $ACCOUNT"; fi

    finish Uninstalled
    cat << EOF
Kept, remove them yourself if you want:
    $CONFIG_DIR  (your config)
    $STATE_DIR  (game and score state)
EOF
    if [[ -d $DROPIN_DIR ]]; then echo "    $DROPIN_DIR  (your overrides of the unit)"; fi
    echo "    the python3-lgpio, espeak-ng and alsa-utils packages (other programs may use them)"
}

main() {
    local action=install arg
    for arg in "$@"; do
        case $arg in
            --dry-run) DRY_RUN=true ;;
            --uninstall) action=uninstall ;;
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
