"""The generated SECRET_KEY: one key, private, even when several processes start at once.

Each process here calls `config.common.secret_key.ensure` for an empty data directory at the same
moment as the others, as `manage.py embedded start` run twice at once would; the settings
then read that key.
"""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from django.conf import settings

from config.common import secret_key

CHILD = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from config.common import secret_key
    go = Path(sys.argv[2])
    print("ready", flush=True)
    while not go.exists():
        pass
    print(secret_key.ensure(Path(sys.argv[1])), flush=True)
    """
)


def keys_of_processes_started_at_once(data_dir: Path, count: int) -> list[str]:
    go = data_dir.with_name(data_dir.name + ".go")
    children = [
        subprocess.Popen(
            [sys.executable, "-c", CHILD, str(data_dir), str(go)],
            cwd=settings.BASE_DIR,
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(count)
    ]
    try:
        for child in children:
            assert child.stdout is not None
            assert child.stdout.readline().strip() == "ready"
        go.touch()
        keys = [child.communicate(timeout=60)[0].strip() for child in children]
    finally:
        for child in children:
            child.kill()
    assert all(child.returncode == 0 for child in children)
    return keys


def test_processes_started_at_once_all_get_one_private_key(tmp_path):
    data_dir = tmp_path / "data"

    for attempt in range(3):  # a race lost once is enough to show; three tries for it
        (data_dir / str(attempt)).mkdir(parents=True)
        keys = keys_of_processes_started_at_once(data_dir / str(attempt), count=6)

        stored = (data_dir / str(attempt) / "secret_key").read_text()
        assert len(stored) >= 50
        assert set(keys) == {stored}
        mode = os.stat(data_dir / str(attempt) / "secret_key").st_mode & 0o777
        assert mode == 0o600
        # No draft left behind.
        assert os.listdir(data_dir / str(attempt)) == ["secret_key"]


def test_a_stored_key_is_kept(tmp_path):
    from config.common import secret_key

    (tmp_path / "secret_key").write_text("kept-key\n")

    assert secret_key.ensure(tmp_path) == "kept-key"
    assert secret_key.stored(tmp_path) == "kept-key"


def test_the_key_is_on_disk_before_its_name_points_at_it(tmp_path, monkeypatch):
    """fsync of the written file comes before the link, and the directory's after it: a
    power cut cannot leave the name pointing at an empty file."""
    calls: list[str] = []
    real_fsync, real_link = os.fsync, os.link

    def fsync(descriptor: int) -> None:
        target = os.readlink(f"/proc/self/fd/{descriptor}")
        calls.append("fsync dir" if os.path.isdir(target) else "fsync file")
        real_fsync(descriptor)

    def link(source, destination) -> None:
        calls.append("link")
        real_link(source, destination)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "link", link)

    secret_key.ensure(tmp_path)

    assert calls == ["fsync file", "link", "fsync dir"]
