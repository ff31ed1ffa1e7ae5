"""The Procfile runner restarts what dies, says why, and leaves the rest running."""

import signal
import socket

from tests.config.tooling.procfile_runs import alive, named, runner, wait_for


def test_a_killed_process_is_restarted_and_the_others_keep_running(tmp_path):
    procfile = tmp_path / "Procfile"
    procfile.write_text("release: echo never started\nweb: sleep 301\nworker: sleep 302\n")
    process = runner(procfile)
    try:
        [web] = wait_for(lambda: named(process.pid, "sleep 301"))
        [worker] = wait_for(lambda: named(process.pid, "sleep 302"))

        worker.kill()  # as the OOM killer would

        [again] = wait_for(
            lambda: [p for p in named(process.pid, "sleep 302") if p.pid != worker.pid]
        )
        assert again.pid != worker.pid
        assert alive(web), "the web process was not taken down with the worker"
        assert not named(process.pid, "never started")
    finally:
        process.send_signal(signal.SIGTERM)
        output = process.communicate(timeout=30)[0]
    assert process.returncode == 0
    assert "exited with code -9 after" in output
    assert "restarting in 1 s" in output
    assert not alive(web)


def test_a_process_that_keeps_dying_young_is_reported_with_its_last_output(tmp_path):
    procfile = tmp_path / "Procfile"
    procfile.write_text("web: sh -c 'echo booting; echo cannot open the thing >&2; exit 3'\n")
    log = tmp_path / "runner.log"
    process = runner(procfile, log=log)
    try:
        wait_for(lambda: "times in a row" in log.read_text(), timeout=60)
    finally:
        process.send_signal(signal.SIGTERM)
        process.communicate(timeout=30)
    output = log.read_text()
    assert "exited with code 3 after" in output
    assert "its last output: cannot open the thing" in output
    assert "has exited 3 times in a row within 10 s of starting" in output


def test_a_port_in_use_stops_the_runner_before_anything_starts(tmp_path):
    procfile = tmp_path / "Procfile"
    procfile.write_text("web: sleep 305\nws: sleep 306\n")
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        busy = holder.getsockname()[1]
        with socket.socket() as spare:
            spare.bind(("127.0.0.1", 0))
            free = spare.getsockname()[1]
        process = runner(procfile, PORT=str(busy), WS_PORT=str(free), HOST="127.0.0.1")
        out, err = process.communicate(timeout=30)

    assert process.returncode == 1
    assert f"port {busy} (PORT) is in use by " in err
    assert "stop it, or choose another port, e.g. `PORT=" in err
    assert "WS_PORT" not in err
    assert "started" not in out, "nothing started"


def test_the_check_alone_passes_on_free_ports_and_names_a_shared_one(tmp_path):
    procfile = tmp_path / "Procfile"
    procfile.write_text("web: sleep 307\nws: sleep 308\n")
    with socket.socket() as spare:
        spare.bind(("127.0.0.1", 0))
        free = str(spare.getsockname()[1])

    ok = runner(procfile, "--check", PORT="0", WS_PORT=free)
    shared = runner(procfile, "--check", PORT=free, WS_PORT=free)

    assert ok.communicate(timeout=30) == ("", "")
    assert ok.returncode == 0
    err = shared.communicate(timeout=30)[1]
    assert shared.returncode == 1
    assert f"PORT and WS_PORT are both {free}: give each its own port" in err
