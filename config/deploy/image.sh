#!/usr/bin/env bash
# Build config/deploy/Containerfile with podman on a machine that reaches no container
# registry (`make image`). The base image is made here from Debian's packages with
# debootstrap, so nothing is pulled; then the image is checked (image_check.py).
#
#   config/deploy/image.sh            # the base (once), the image, the check
#   config/deploy/image.sh --no-check # the base (once) and the image
#   config/deploy/image.sh podman ... # podman on the project's storage, e.g. `images`
#
# Everything podman keeps is under var/image/ (gitignored): images, layers and containers
# in storage/, its run-time state in run/ and tmp/, its settings in containers.conf and
# storage.conf. The machine's podman storage and configuration files are neither read
# nor changed. Run from the repository root, as root.
set -euo pipefail

STATE="$(pwd)/var/image"
BASE=localhost/ingest-base:bookworm
TAG=ingest:local
# overlay works on ext4/xfs as root; vfs (a full copy per layer: slower, larger) anywhere.
DRIVER="${INGEST_IMAGE_STORAGE_DRIVER:-overlay}"
# debootstrap's default mirror unless one is given (the URL of a Debian archive).
MIRROR="${DEBIAN_MIRROR:-}"

# podman's settings, in two files of our own named by the CONTAINERS_* variables (the
# machine's containers.conf and storage.conf are then not read):
# - runc, not crun: Debian's crun 1.8 refuses a cgroup v1 host whose cgroup v2 hierarchy
#   holds a controller ("cgroups in hybrid mode not supported").
# - cgroupfs: the machine may run no systemd. Events go to a file, under tmp/.
# - ulimits no higher than ours: as root podman asks 1048576 open files and processes for
#   each container, which fails ("setrlimit: Operation not permitted") where the hard
#   limits are lower and cannot be raised; podman caps its own processes at 32768.
mkdir -p "$STATE/tmp"
nofile="$(ulimit -Hn)"
nproc="$(ulimit -Hu)"
if [ "$nofile" = unlimited ]; then nofile=1048576; fi
if [ "$nproc" = unlimited ] || [ "$nproc" -gt 32768 ]; then nproc=32768; fi
cat >"$STATE/containers.conf" <<EOF
[containers]
default_ulimits = ["nofile=$nofile:$nofile", "nproc=$nproc:$nproc"]
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
network_backend = "netavark"
tmp_dir = "$STATE/tmp"
image_copy_tmp_dir = "$STATE/tmp"
EOF
cat >"$STATE/storage.conf" <<EOF
[storage]
driver = "$DRIVER"
graphroot = "$STATE/storage"
runroot = "$STATE/run"
EOF
export CONTAINERS_CONF="$STATE/containers.conf" CONTAINERS_STORAGE_CONF="$STATE/storage.conf"
# Without systemd there is no timer to run health checks: podman would log an error at
# each start; `podman healthcheck run NAME` runs one when asked.
if [ ! -d /run/systemd/system ]; then export DISABLE_HC_SYSTEMD=true; fi

if [ "${1:-}" = podman ]; then
    shift
    exec podman "$@"
fi

# The base: Debian bookworm's minimal system with its Python 3.11, as python:3.11-slim
# has it (`python` too: the Containerfile calls it), with the day's security updates.
make_base() {
    local rootfs="$STATE/rootfs" mirror security
    rm -rf "$rootfs"
    # shellcheck disable=SC2086  # MIRROR: no word, or one
    debootstrap --variant=minbase \
        --include=python3,python3-venv,python-is-python3,ca-certificates \
        bookworm "$rootfs" $MIRROR
    # debootstrap's sources name bookworm only: -updates and -security beside it.
    mirror="$(awk '$1 == "deb" { print $2; exit }' "$rootfs/etc/apt/sources.list")"
    security="${DEBIAN_SECURITY_MIRROR:-$mirror-security}"
    cat >"$rootfs/etc/apt/sources.list" <<EOF
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb $security bookworm-security main
EOF
    # As in Debian's own container images (python:3.11-slim's base), which the Containerfile
    # expects: apt leaves no .deb files nor package caches in a layer, dpkg no manuals.
    local clean='"rm -f /var/cache/apt/archives/*.deb /var/cache/apt/*.bin || true"'
    cat >"$rootfs/etc/apt/apt.conf.d/docker-clean" <<EOF
DPkg::Post-Invoke { $clean; };
APT::Update::Post-Invoke { $clean; };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
Acquire::Languages "none";
EOF
    printf '%s\n' 'path-exclude /usr/share/doc/*' 'path-include /usr/share/doc/*/copyright' \
        'path-exclude /usr/share/man/*' 'path-exclude /usr/share/info/*' \
        >"$rootfs/etc/dpkg/dpkg.cfg.d/docker"
    find "$rootfs/usr/share/doc" -type f ! -name copyright -delete
    rm -rf "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/*
    cp /etc/resolv.conf "$rootfs/etc/resolv.conf"
    chroot "$rootfs" sh -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
        apt-get upgrade -y -qq && apt-get clean && rm -rf /var/lib/apt/lists/*'
    : >"$rootfs/etc/resolv.conf" # each container gets its own
    tar -C "$rootfs" --numeric-owner --exclude='./dev/*' --exclude='./proc/*' \
        --exclude='./sys/*' -c . |
        podman import --change 'ENV LANG=C.UTF-8' --change 'CMD ["python3"]' \
            --message "debootstrap bookworm minbase, python3" - "$BASE"
    rm -rf "$rootfs"
}

started=$SECONDS
if podman image exists "$BASE"; then
    echo "image.sh: the base $BASE is here (podman rmi it to make it again)"
else
    echo "image.sh: making the base $BASE with debootstrap"
    make_base
fi
echo "image.sh: base ready after $((SECONDS - started)) s"

# --network host: RUN steps (pip, apt-get) use the machine's network as it is, with no
# bridge or firewall rules to set up. The machine's CA bundle is mounted over the base's
# for the RUN steps only (a mount is not part of any layer): where HTTPS goes through a
# proxy that only the machine's bundle trusts, pip (Debian's reads that file) needs it.
# --format docker keeps the HEALTHCHECK. --pull=never: the base is local, no registry is
# asked. INGEST_IMAGE_BUILD_ARGS: more, e.g. --no-cache.
CA_BUNDLE=/etc/ssl/certs/ca-certificates.crt
ca_mount=()
if [ -f "$CA_BUNDLE" ]; then
    ca_mount=(--volume "$CA_BUNDLE:/etc/ssl/certs/ca-certificates.crt:ro")
fi
# shellcheck disable=SC2086
podman build --format docker --pull=never --network host "${ca_mount[@]}" \
    --ignorefile config/deploy/Containerfile.dockerignore \
    --build-arg PYTHON_IMAGE="$BASE" ${INGEST_IMAGE_BUILD_ARGS:-} \
    -f config/deploy/Containerfile -t "$TAG" .
echo "image.sh: $TAG built after $((SECONDS - started)) s in all"
podman image ls --format '{{.Repository}}:{{.Tag}} {{.Size}}' "$TAG"

if [ "${1:-}" != --no-check ]; then
    "${PYTHON:-.venv/bin/python}" config/deploy/image_check.py --image "$TAG"
fi
