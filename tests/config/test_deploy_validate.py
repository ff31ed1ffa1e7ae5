"""config/deploy/validate.py, run as `make lint` runs it: the deployment files pass, and a
compose file that writes a password (a default fallback, one in a URL, Redis without one)
fails, naming where."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "config" / "deploy"
POSTGRES_PASSWORD = "${POSTGRES_PASSWORD:?set POSTGRES_PASSWORD}"
REDIS_PASSWORD = "${REDIS_PASSWORD:?set REDIS_PASSWORD}"
S3_SECRET = "${INGEST_S3_SECRET_ACCESS_KEY:?set INGEST_S3_SECRET_ACCESS_KEY}"


def validate(deploy_dir: Path = DEPLOY) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "config/deploy/validate.py", "--deploy-dir", str(deploy_dir)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_deployment_files_pass():
    checked = validate()

    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "ok    config/deploy/compose.yaml" in checked.stdout


@pytest.mark.parametrize(
    ("written", "instead", "says"),
    [
        (POSTGRES_PASSWORD, "${POSTGRES_PASSWORD:-ingest}", "POSTGRES_PASSWORD falls back"),
        (
            S3_SECRET,
            "${INGEST_S3_SECRET_ACCESS_KEY-change-me}",
            "INGEST_S3_SECRET_ACCESS_KEY falls",
        ),
        (f"{POSTGRES_PASSWORD}@postgres", "hunter2@postgres", "password is not a required"),
        (f"redis://:{REDIS_PASSWORD}@redis", "redis://redis", "REDIS_URL: the URL has no password"),
        (f', "--requirepass", "{REDIS_PASSWORD}"', "", "Redis without a password"),
    ],
)
def test_a_compose_file_that_writes_a_password_fails(tmp_path, written, instead, says):
    deploy = tmp_path / "deploy"
    shutil.copytree(DEPLOY, deploy)
    compose = deploy / "compose.yaml"
    text = compose.read_text()
    assert written in text
    compose.write_text(text.replace(written, instead))

    checked = validate(deploy)

    assert checked.returncode == 1
    failures = [line for line in checked.stdout.splitlines() if line.startswith("FAIL")]
    assert failures, checked.stdout
    assert all("compose.yaml" in line for line in failures), failures
    assert any(says in line for line in failures), failures
