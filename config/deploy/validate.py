"""Validate the deployment files: `python config/deploy/validate.py` from the repository root.

- compose.yaml against the Compose Specification's JSON schema (the copy check-jsonschema
  vendors as `vendor.compose-spec`);
- kubernetes/*.yaml against Kubernetes' own schemas (kubernetes-validate's, strict: a field
  Kubernetes does not know is an error), each KEDA ScaledObject against
  schemas/keda-scaledobject-v1alpha1.json, and kustomization.yaml against the files here;
- and what no schema knows: each Procfile line is still the command of its compose service
  and of its Kubernetes workload, every variable they set is one config/tooling/variables.py
  documents, each lane's KEDA threshold is the threads one of its pods runs, and the
  workers' grace periods outlast Dramatiq's shutdown timeout;
- and that compose.yaml writes no password: every secret variable is required
  (`${NAME:?message}`, never a `${NAME:-default}` fallback), every password in a URL is one,
  and Redis runs with `--requirepass`.

One line per file validated; each problem is a line naming the file, the object and the
error, and the exit status is then 1. Nothing is fetched: the schemas come from installed
packages and from config/deploy/schemas/. `--deploy-dir` validates a copy of this
directory instead (the Procfile and config/tooling/variables.py are still this checkout's).
"""

import argparse
import json
import re
import shlex
import sys
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped]
import yaml
from jsonschema.exceptions import ValidationError, best_match  # type: ignore[import-untyped]
from kubernetes_validate import utils as kubernetes  # type: ignore[import-untyped]

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))

from config.tooling import variables  # noqa: E402 (the checkout's, whatever the working directory)
from config.tooling.procfile import read_procfile  # noqa: E402

KUBERNETES_VERSION = "1.33"
KEDA_SCHEMA = "schemas/keda-scaledobject-v1alpha1.json"
COMPOSE_FOR_RELEASE = "migrate"  # the compose service that runs the Procfile's `release`
# What the containers write under a read-only root: $INGEST_DATA_DIR/tmp and /prometheus.
WRITABLE = ("/tmp", "/var/lib/ingest/tmp", "/var/lib/ingest/prometheus")
Resource = dict[str, Any]


class Report:
    def __init__(self, base: Path) -> None:
        self.base = base
        self.failed = 0

    def file(self, path: Path, problems: list[str], summary: str) -> None:
        name = self.shown(path)
        if not problems:
            print(f"ok    {name}: {summary}")
            return
        self.failed += 1
        for problem in dict.fromkeys(problems):  # each once, in order
            print(f"FAIL  {name}: {problem}")

    def skipped(self, path: Path, why: str) -> None:
        print(f"skip  {self.shown(path)}: {why}")

    def shown(self, path: Path) -> str:
        try:
            return str(path.relative_to(self.base))
        except ValueError:
            return str(path)


def where(error: ValidationError) -> str:
    return ".".join(str(part) for part in error.absolute_path) or "(top level)"


def schema_problems(validator: Any, instance: object, prefix: str = "") -> list[str]:
    found = []
    for error in sorted(validator.iter_errors(instance), key=lambda e: list(map(str, e.path))):
        detail = best_match(error.context) if error.context else error
        found.append(f"{prefix}{where(detail)}: {detail.message}")
    return found


def shell_command(line: str) -> list[str]:
    """How compose.yaml and the manifests run a Procfile line: /bin/sh expands its
    ${VAR:-default}s from the container's environment, as config/tooling/procfile.py does."""
    return ["sh", "-c", f"exec {line}"]


def documented() -> set[str]:
    return set(variables.meanings())


def undocumented(names: list[str], known: set[str]) -> list[str]:
    return sorted(set(names) - known)


# --------------------------------------------------------------------------- compose


def compose_schema() -> dict[str, Any]:
    vendor = resources.files("check_jsonschema.builtin_schemas.vendor")
    schema: dict[str, Any] = json.loads(vendor.joinpath("compose-spec.json").read_text())
    return schema


def check_compose(path: Path, procfile: dict[str, str], report: Report) -> None:
    try:
        compose = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as error:
        report.file(path, [f"cannot read it: {error}"], "")
        return
    schema = compose_schema()
    validator = jsonschema.validators.validator_for(schema)(schema)
    problems = schema_problems(validator, compose)
    services = (compose.get("services") or {}) if isinstance(compose, dict) else {}
    if not problems:
        problems += compose_project_problems(services, procfile)
        problems += compose_secret_problems(compose)
    report.file(
        path, problems, f"Compose Specification, {len(services)} services, no password written"
    )


def compose_project_problems(services: dict[str, Any], procfile: dict[str, str]) -> list[str]:
    problems = []
    known = documented()
    ours = {name for name, service in services.items() if "build" in service}
    for name, line in procfile.items():
        service = COMPOSE_FOR_RELEASE if name == "release" else name
        if service not in services:
            problems.append(f"services: no `{service}` for the Procfile's `{name}`")
            continue
        # Compose expands $VAR itself, from the host, unless it is written $$.
        expected = [part.replace("$", "$$") for part in shell_command(line)]
        if services[service].get("command") != expected:
            problems.append(
                f"services.{service}.command: not the Procfile's `{name}` line; "
                f"expected {json.dumps(expected)}"
            )
    setting: dict[str, list[str]] = {}  # a variable no setting has -> the services that set it
    for name in sorted(ours):
        service = services[name]
        environment = service.get("environment") or {}
        names = (
            environment
            if isinstance(environment, dict)
            else [item.split("=", 1)[0] for item in environment]
        )
        for variable in undocumented(list(names), known):
            setting.setdefault(variable, []).append(name)
        if service.get("volumes"):
            problems.append(
                f"services.{name}.volumes: the service's processes share no "
                "volume (uploads are in S3)"
            )
        if name != COMPOSE_FOR_RELEASE:
            condition = (service.get("depends_on") or {}).get(COMPOSE_FOR_RELEASE, {})
            if condition.get("condition") != "service_completed_successfully":
                problems.append(
                    f"services.{name}.depends_on: {COMPOSE_FOR_RELEASE} with "
                    "condition service_completed_successfully"
                )
    for variable, names in setting.items():
        problems.append(
            f"environment of {', '.join(names)}: {variable} is not a setting of the "
            "service (config/tooling/variables.py)"
        )
    return problems


# Variables that hold a secret, by name: DJANGO_SECRET_KEY, POSTGRES_PASSWORD, REDIS_PASSWORD,
# INGEST_S3_SECRET_ACCESS_KEY, INGEST_*_TOKEN.
SECRET_NAME = re.compile(r"PASSWORD|SECRET|TOKEN")
# A variable with a fallback: compose's ${NAME:-x} or ${NAME-x}, or the container shell's
# $${NAME:-x}. A fallback written here is a password anyone who reads the file knows.
FALLBACK = re.compile(r"\$\{(\w+):?-")
# A variable compose refuses to start without (unset or empty): ${NAME:?message}.
REQUIRED = re.compile(r"\$\{(\w+):\?[^}]*\}")
# The user information of a URL (`scheme://user:password@host`), ${...} whole.
USERINFO = re.compile(r"[a-z][a-z0-9+.-]*://((?:\$\{[^}]*\}|[^@/\s\"'])*)@")
# The backing services' URLs, which must carry a password.
WITH_PASSWORD = ("postgres://", "postgresql://", "redis://", "rediss://")


def strings(node: object, at: str = "", seen: set[int] | None = None) -> Iterator[tuple[str, str]]:
    """Every string in a parsed YAML document, with where it is (services.web.command.2).
    What an alias repeats (`*ingest-env` in every service) is the same object: it is
    walked once, where it first appears."""
    seen = set() if seen is None else seen
    if isinstance(node, str):
        yield at or "(top level)", node
    elif isinstance(node, dict | list) and id(node) not in seen:
        seen.add(id(node))
        items = node.items() if isinstance(node, dict) else enumerate(node)
        for key, value in items:
            yield from strings(value, f"{at}.{key}" if at else str(key), seen)


def url_password(userinfo: str) -> str | None:
    """The password of a URL's `user:password` (a colon inside ${...} is not the one)."""
    depth = 0
    for position, character in enumerate(userinfo):
        depth += {"{": 1, "}": -1}.get(character, 0)
        if character == ":" and depth == 0:
            return userinfo[position + 1 :]
    return None


def required_secret(text: str) -> bool:
    found = REQUIRED.fullmatch(text)
    return found is not None and bool(SECRET_NAME.search(found.group(1)))


def compose_secret_problems(compose: dict[str, Any]) -> list[str]:
    """compose.yaml writes no password: see the module's docstring."""
    problems = []
    for at, text in strings(compose):
        for name in FALLBACK.findall(text):
            if SECRET_NAME.search(name):
                problems.append(
                    f"{at}: {name} falls back to a default password; require it instead, "
                    f"${{{name}:?set {name}}}"
                )
        for userinfo in USERINFO.findall(text):
            password = url_password(userinfo)
            if password is not None and not required_secret(password):
                problems.append(
                    f"{at}: the URL's password is not a required variable (${{NAME:?message}})"
                )
        if text.startswith(WITH_PASSWORD) and not any(
            url_password(userinfo) for userinfo in USERINFO.findall(text)
        ):
            problems.append(f"{at}: the URL has no password; give it ${{NAME:?message}}")
    for name, service in (compose.get("services") or {}).items():
        if str(service.get("image", "")).startswith("redis"):
            command = [str(part) for part in service.get("command") or []]
            after = (
                command[command.index("--requirepass") + 1 :] if "--requirepass" in command else []
            )
            if not after or not required_secret(after[0]):
                problems.append(
                    f"services.{name}.command: Redis without a password; add --requirepass "
                    "${REDIS_PASSWORD:?set REDIS_PASSWORD}"
                )
    return problems


# --------------------------------------------------------------------------- Kubernetes


def label(resource: Resource) -> str:
    name = (resource.get("metadata") or {}).get("name", "?")
    return f"{resource.get('kind', '?')}/{name}"


def validate_resource(resource: Resource, keda: Any, version: str) -> list[str]:
    if not isinstance(resource, dict) or "apiVersion" not in resource or "kind" not in resource:
        return ["(document): not a Kubernetes object (no apiVersion or kind)"]
    prefix = f"{label(resource)}: "
    if resource["apiVersion"].startswith("keda.sh/"):
        if resource["kind"] != "ScaledObject":
            return [f"{prefix}no schema here for KEDA's {resource['kind']}"]
        problems = schema_problems(keda, resource, prefix)
        spec = resource.get("spec") or {}
        if not problems and spec.get("minReplicaCount", 0) > spec.get("maxReplicaCount", 100):
            problems.append(f"{prefix}spec: minReplicaCount must be at most maxReplicaCount")
        return problems
    try:
        kubernetes.validate(resource, version, strict=True)
    except kubernetes.ValidationError as error:
        path = ".".join(str(part) for part in error.path) or "(top level)"
        return [f"{prefix}{path}: {error.message}"]
    except kubernetes.SchemaNotFoundError as error:
        return [f"{prefix}{error.message}: nothing here can validate it"]
    return []


def check_kubernetes(
    directory: Path, procfile: dict[str, str], version: str, report: Report
) -> None:
    keda_schema = json.loads((HERE / KEDA_SCHEMA).read_text())
    keda = jsonschema.Draft202012Validator(keda_schema)
    manifests = sorted(p for p in directory.glob("*.yaml") if p.name != "kustomization.yaml")
    everything: list[Resource] = []
    valid = True
    for path in manifests:
        try:
            documents = [d for d in yaml.safe_load_all(path.read_text()) if d is not None]
        except (OSError, yaml.YAMLError) as error:
            report.file(path, [f"cannot read it: {error}"], "")
            valid = False
            continue
        problems = [p for d in documents for p in validate_resource(d, keda, version)]
        valid = valid and not problems
        kinds = ", ".join(label(d) for d in documents if isinstance(d, dict))
        keda_too = any(isinstance(d, dict) and d.get("kind") == "ScaledObject" for d in documents)
        schemas = f"Kubernetes {version} (strict)" + (" and KEDA" if keda_too else "")
        report.file(path, problems, f"{schemas}: {kinds}")
        everything += [d for d in documents if isinstance(d, dict)]
    check_kustomization(directory / "kustomization.yaml", manifests, report)
    if not valid:  # the checks below read what the schemas vouch for
        report.skipped(directory, "cross-checks, until every manifest is valid")
        return
    problems = kubernetes_project_problems(everything, procfile)
    report.file(directory, problems, "the manifests agree with the Procfile and each other")


def check_kustomization(path: Path, manifests: list[Path], report: Report) -> None:
    try:
        kustomization = yaml.safe_load(path.read_text()) or {}
    except (OSError, yaml.YAMLError) as error:
        report.file(path, [f"cannot read it: {error}"], "")
        return
    problems = []
    if kustomization.get("apiVersion") != "kustomize.config.k8s.io/v1beta1":
        problems.append("apiVersion: kustomize.config.k8s.io/v1beta1")
    if kustomization.get("kind") != "Kustomization":
        problems.append("kind: Kustomization")
    listed = kustomization.get("resources") or []
    for name in listed:
        if not (path.parent / name).is_file():
            problems.append(f"resources: {name} does not exist")
    for manifest in manifests:
        if manifest.name not in listed:
            problems.append(f"resources: {manifest.name} is not listed")
    for image in kustomization.get("images") or []:
        if not isinstance(image, dict) or not isinstance(image.get("name"), str):
            problems.append(f"images: {image!r} has no name")
        elif not set(image) <= {"name", "newName", "newTag", "digest"}:
            problems.append(f"images.{image['name']}: only name, newName, newTag, digest")
    report.file(path, problems, f"{len(listed)} resources, every manifest listed")


def pod_spec(resource: Resource) -> dict[str, Any]:
    spec: dict[str, Any] = resource.get("spec", {}).get("template", {}).get("spec", {})
    return spec


def kubernetes_project_problems(everything: list[Resource], procfile: dict[str, str]) -> list[str]:
    problems = []
    by_kind: dict[str, dict[str, Resource]] = {}
    for resource in everything:
        name = resource.get("metadata", {}).get("name", "")
        by_kind.setdefault(resource["kind"], {})[name] = resource
    deployments = by_kind.get("Deployment", {})
    config = next(iter(by_kind.get("ConfigMap", {}).values()), {}).get("data") or {}

    # Each Procfile line runs as a workload of its own, with the line as its command.
    for name, line in procfile.items():
        kind, workload = (
            ("Job", "ingest-release") if name == "release" else ("Deployment", f"ingest-{name}")
        )
        found = by_kind.get(kind, {}).get(workload)
        if found is None:
            problems.append(f"no {kind}/{workload} for the Procfile's `{name}`")
            continue
        containers = pod_spec(found).get("containers") or [{}]
        if containers[0].get("args") != shell_command(line):
            problems.append(
                f"{kind}/{workload}: containers[0].args is not the Procfile's "
                f"`{name}` line; expected {json.dumps(shell_command(line))}"
            )
        if "$(" in line:
            problems.append(f"the Procfile's `{name}` has $(...), which Kubernetes expands")
        timeout = re.search(r"--worker-shutdown-timeout (\d+)", line)
        grace = pod_spec(found).get("terminationGracePeriodSeconds", 30)
        if timeout and grace <= int(timeout.group(1)) / 1000:
            problems.append(
                f"{kind}/{workload}: terminationGracePeriodSeconds {grace} is not "
                f"longer than the worker's shutdown timeout"
            )

    known = documented()
    for kind in ("ConfigMap", "Secret"):
        for name, resource in by_kind.get(kind, {}).items():
            keys = list(resource.get("data") or {}) + list(resource.get("stringData") or {})
            for variable in undocumented(keys, known):
                problems.append(
                    f"{kind}/{name}: {variable} is not a setting of the service "
                    "(config/tooling/variables.py)"
                )
    allowed_hosts = [h.strip() for h in str(config.get("DJANGO_ALLOWED_HOSTS", "")).split(",")]
    for resource in everything:
        problems += pod_problems(resource, by_kind, known, allowed_hosts)

    # Selectors select something; KEDA's targets exist, and their thresholds match.
    for kind in ("Service", "PodDisruptionBudget"):
        for name, resource in by_kind.get(kind, {}).items():
            selector = resource["spec"].get("selector") or {}
            selector = selector.get("matchLabels", selector) if kind != "Service" else selector
            if not any(
                selector.items() <= d["spec"]["template"]["metadata"]["labels"].items()
                for d in deployments.values()
            ):
                problems.append(f"{kind}/{name}: its selector matches no Deployment's pods")
    for name, scaled in by_kind.get("ScaledObject", {}).items():
        problems += scaled_object_problems(name, scaled, deployments, config, procfile)
    return problems


def pod_problems(
    resource: Resource,
    by_kind: dict[str, dict[str, Resource]],
    known: set[str],
    allowed_hosts: list[str],
) -> list[str]:
    if resource["kind"] not in ("Deployment", "Job"):
        return []
    problems = []
    spec = pod_spec(resource)
    volumes = {v["name"]: v for v in spec.get("volumes") or []}
    for container in (spec.get("initContainers") or []) + (spec.get("containers") or []):
        at = f"{label(resource)}: container {container.get('name')}"
        for source in container.get("envFrom") or []:
            for key, kind in (("configMapRef", "ConfigMap"), ("secretRef", "Secret")):
                ref = (source.get(key) or {}).get("name")
                if ref and ref not in by_kind.get(kind, {}):
                    problems.append(f"{at}: envFrom names {kind}/{ref}, which is not here")
        env = [item["name"] for item in container.get("env") or []]
        for variable in undocumented(env, known):
            problems.append(f"{at}: env {variable} is not a setting of the service")
        security = container.get("securityContext") or {}
        if security.get("readOnlyRootFilesystem"):
            mounted = {
                m["mountPath"]
                for m in container.get("volumeMounts") or []
                if "emptyDir" in volumes.get(m["name"], {})
            }
            for path in WRITABLE:
                if path not in mounted:
                    problems.append(f"{at}: read-only root, but no emptyDir at {path}")
        for probe in ("readinessProbe", "livenessProbe", "startupProbe"):
            for header in ((container.get(probe) or {}).get("httpGet") or {}).get(
                "httpHeaders"
            ) or []:
                if header["name"].lower() == "host" and header["value"] not in allowed_hosts:
                    problems.append(
                        f"{at}: {probe} sends Host {header['value']}, which "
                        "DJANGO_ALLOWED_HOSTS (ingest-config) leaves out"
                    )
    return problems


def lane_threads(lane: str, config: dict[str, Any], procfile: dict[str, str]) -> int:
    """WORKER_<LANE>_PROCESSES x WORKER_<LANE>_THREADS, from the ConfigMap or else from the
    Procfile's defaults."""
    product = 1
    for part in ("PROCESSES", "THREADS"):
        variable = f"WORKER_{lane.upper()}_{part}"
        default = re.search(r"\$\{" + variable + r":-(\d+)\}", " ".join(procfile.values()))
        product *= int(config.get(variable) or (default.group(1) if default else 1))
    return product


# A backlog this deep asks for a lane's maximum of pods (the source texts: "from 4 to 32
# within 90 seconds of queue depth exceeding 200").
QUEUE_DEPTH_FOR_MAX = 200


def scaled_object_problems(
    name: str,
    scaled: Resource,
    deployments: dict[str, Resource],
    config: dict[str, Any],
    procfile: dict[str, str],
) -> list[str]:
    problems = []
    target = scaled["spec"]["scaleTargetRef"]["name"]
    if target not in deployments:
        problems.append(f"ScaledObject/{name}: scales Deployment/{target}, which is not here")
    elif "replicas" in deployments[target]["spec"]:
        problems.append(
            f"Deployment/{target}: sets replicas, which KEDA owns "
            f"(ScaledObject/{name}); every apply would reset them"
        )
    for trigger in scaled["spec"]["triggers"]:
        query = trigger["metadata"].get("query", "")
        lane = re.search(r'lane="([a-z]+)"', query)
        if trigger["type"] != "prometheus" or not lane:
            continue
        if target != f"ingest-worker-{lane.group(1)}":
            problems.append(
                f"ScaledObject/{name}: asks for lane {lane.group(1)} but scales {target}"
            )
        threshold = float(trigger["metadata"]["threshold"])
        if "ingest_jobs{" in query:  # the backlog trigger: 200 queued ask for the maximum
            wanted = QUEUE_DEPTH_FOR_MAX / scaled["spec"]["maxReplicaCount"]
            if 'status="queued"' not in query or abs(threshold - wanted) > 1e-9:
                problems.append(
                    f"ScaledObject/{name}: a backlog trigger counts queued jobs, threshold "
                    f"{QUEUE_DEPTH_FOR_MAX} / maxReplicaCount = {wanted:g}"
                )
            continue
        threads = lane_threads(lane.group(1), config, procfile)
        if threshold != threads:
            problems.append(
                f"ScaledObject/{name}: threshold {trigger['metadata']['threshold']}"
                f" is not the {threads} threads one pod runs (WORKER_"
                f"{lane.group(1).upper()}_PROCESSES x _THREADS)"
            )
    return problems


# --------------------------------------------------------------------------- image


def check_containerfile(path: Path, procfile: dict[str, str], report: Report) -> None:
    try:
        text = path.read_text()
    except OSError as error:
        report.file(path, [f"cannot read it: {error}"], "")
        return
    problems = []
    commands = re.findall(r"^CMD (\[.*\])\s*$", text, re.MULTILINE)
    if not commands or json.loads(commands[-1]) != shlex.split(procfile["web"]):
        problems.append(f"CMD: not the Procfile's web line, {procfile['web']!r}, in exec form")
    for needed in ("USER 10001", "HEALTHCHECK", "EXPOSE 8000 8001"):
        if needed not in text:
            problems.append(f"no {needed}")
    report.file(path, problems, "its CMD is the Procfile's web line")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deploy-dir", type=Path, default=HERE, help="default: this directory")
    parser.add_argument(
        "--kubernetes-version",
        default=KUBERNETES_VERSION,
        help=f"schemas of this release (default {KUBERNETES_VERSION}; "
        f"kubernetes-validate has up to {kubernetes.latest_version()})",
    )
    args = parser.parse_args(argv)
    deploy = args.deploy_dir.resolve()
    report = Report(Path.cwd())
    procfile = read_procfile(ROOT / "Procfile")
    check_containerfile(deploy / "Containerfile", procfile, report)
    check_compose(deploy / "compose.yaml", procfile, report)
    try:
        check_kubernetes(deploy / "kubernetes", procfile, args.kubernetes_version, report)
    except kubernetes.VersionNotSupportedError:
        parser.error(f"kubernetes-validate has no schemas for {args.kubernetes_version}")
    if report.failed:
        print(f"validate.py: {report.failed} file(s) failed", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
