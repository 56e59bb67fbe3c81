"""The device kinds behind ``[device] kind`` (firmware/daemon/device.py): each is built by its name
and has every member of the one protocol the driver uses, whichever kind it is."""

from __future__ import annotations

import asyncio

import pytest

from harness.launcherd import BLASTER, write_config
from firmware.config import load_config, with_sim_devices
from firmware.daemon.device import KINDS, Device, build_device
from firmware.launcher.sim import sim_pin_factory

PROTOCOL = sorted({name for name in dir(Device) if not name.startswith("_")} | set(Device.__annotations__))


@pytest.mark.parametrize("kind, extra", [("launcher", ""), ("blaster", BLASTER)])
@pytest.mark.parametrize("sim", [True, False])
def test_each_kind_is_built_by_its_name_with_every_member_of_the_protocol(tmp_path, kind, extra, sim):
    config = load_config(write_config(tmp_path, extra))
    loop = asyncio.new_event_loop()
    try:
        device = build_device(with_sim_devices(config) if sim else config, sim_pin_factory(), loop, 7,
                              sim=sim, state_dir=tmp_path)
        try:
            assert type(device).__module__ == KINDS[kind]
            assert [name for name in PROTOCOL if not hasattr(device, name)] == []
            assert (device.sim is not None) == sim
            # Its sim's methods are an extra of its own, loaded only under --sim.
            assert any(name.endswith(".sim") for name in device.extras) == sim
        finally:
            device.close()
    finally:
        loop.close()
