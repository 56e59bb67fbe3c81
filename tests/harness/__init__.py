"""The one harness of the tests, the browser tests and the benchmarks.

launcherd: launcherd as a process (DaemonProcess) and in a thread of the test process
(ThreadDaemon), launcherctl, the config writer (write_config). waits: waits with a deadline on the
thing itself (wait_until, wait_for_status, Events, Lines). web: launcher-web beside launcherd
(Stack) or beside a stand-in for it (StandIn). browser: headless Chromium. fakes: a fake event
loop. units: a systemd unit-file parser.

tests/ is on sys.path through tests/conftest.py; bench/common.py puts it there itself.
"""
