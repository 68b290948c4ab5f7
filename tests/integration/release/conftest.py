"""The release, made once per session by scripts/package from the build tree
and unpacked outside it: the tarball with tarfile, the .deb with dpkg-deb -x.
The unpacked hosts run with a bare environment (no ALGENTA_* variables, no
virtual environment on PATH) from their own directory and, where the machine
lets a mount namespace be made, with the checkout, the build tree and the
test's virtual environment hidden under empty tmpfs mounts."""
import os
import subprocess
import sys
import tarfile

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))

SOURCE_DIR = os.environ.get("ALGENTA_SOURCE_DIR", "")
BUILD_DIR = os.environ.get("ALGENTA_BUILD_DIR", "")
BUILD_HOST = os.environ.get("ALGENTA_HOST", "")
BUILD_SIGN = os.environ.get("ALGENTA_SIGN", "")
TEST_PLUGINS = os.environ.get("ALGENTA_TEST_PLUGINS", "")
CUDA_PLUGINS = os.environ.get("ALGENTA_CUDA_PLUGINS") == "1"


def need_environment():
    if not (SOURCE_DIR and BUILD_DIR and BUILD_HOST and BUILD_SIGN):
        raise RuntimeError("run these tests through ctest (release_artifacts): "
                           "ALGENTA_SOURCE_DIR/BUILD_DIR/HOST/SIGN are not set")


def run(args, **kwargs):
    kwargs.setdefault("capture_output", True)
    kwargs.setdefault("text", True)
    kwargs.setdefault("timeout", 600)
    return subprocess.run([str(a) for a in args], **kwargs)


# Mounts an empty tmpfs over each directory before `--`, then runs the rest.
# A directory already hidden under an earlier mount no longer exists: skipped.
HIDE_THEN_RUN = ('while [ "$1" != -- ]; do if [ -d "$1" ]; then '
                 'mount -t tmpfs -o size=1m,mode=0755 none "$1" || exit 97; fi; shift; done; '
                 'shift; exec "$@"')


def hidden_directories():
    dirs = [os.path.realpath(BUILD_DIR), os.path.realpath(SOURCE_DIR)]
    if sys.prefix != sys.base_prefix:  # the test's virtual environment
        dirs.append(os.path.realpath(sys.prefix))
    return dirs


_isolation = None


def isolation_prefix():
    """The command prefix that hides the checkout, or [] where mount
    namespaces cannot be made (the bare environment still applies)."""
    global _isolation
    if _isolation is None:
        probe = subprocess.run(["unshare", "-m", "sh", "-c", HIDE_THEN_RUN, "sh",
                                *hidden_directories(), "--", "sh", "-c",
                                f"! ls -A {hidden_directories()[0]} | grep -q ."],
                               capture_output=True)
        _isolation = (["unshare", "-m", "sh", "-c", HIDE_THEN_RUN, "sh",
                       *hidden_directories(), "--"] if probe.returncode == 0 else [])
    return _isolation


class Keys:
    def __init__(self, directory, name):
        self.private = os.path.join(directory, f"{name}.key")
        self.public = os.path.join(directory, f"{name}.pub")
        r = run([BUILD_SIGN, "keygen", "--private", self.private, "--public", self.public])
        assert r.returncode == 0, r.stderr
        self.key_id = r.stdout.strip()


class Installed:
    """An unpacked release: where its binaries and configuration are, and a
    way to run them as an operator would, from outside the checkout."""

    def __init__(self, root, debian, home):
        self.root = root
        self.prefix = os.path.join(root, "usr") if debian else root
        self.etc = os.path.join(root, "etc")
        self.home = home
        os.makedirs(home, exist_ok=True)

    def path(self, *parts):
        return os.path.join(self.prefix, *parts)

    @property
    def host(self):
        return self.path("bin", "algenta-host")

    @property
    def sign(self):
        return self.path("bin", "algenta-sign")

    @property
    def keyring(self):
        return os.path.join(self.etc, "algenta", "keyring")

    @property
    def bundle(self):
        return self.path("lib", "algenta", "plugins", "vendor")

    def env(self):
        return {"PATH": "/usr/bin:/bin", "HOME": self.home, "LANG": "C.UTF-8"}

    def command(self, executable, *args):
        return [*isolation_prefix(), executable, *map(str, args)]

    def run(self, *args, **kwargs):
        return run(self.command(self.host, *args), cwd=self.root, env=self.env(), **kwargs)

    def run_sign(self, *args):
        return run(self.command(self.sign, *args), cwd=self.root, env=self.env())


@pytest.fixture(scope="session")
def release(tmp_path_factory):
    """(packager keys, output dir, tarball, .deb) of one scripts/package run."""
    need_environment()
    work = tmp_path_factory.mktemp("release")
    keys = Keys(str(work), "packager")
    out = work / "out"
    r = run([os.path.join(SOURCE_DIR, "scripts", "package"), "--build-dir", BUILD_DIR,
             "--out", out, "--key", keys.private, "--public", keys.public])
    assert r.returncode == 0, r.stdout + r.stderr
    tarballs = sorted(out.glob("algenta-host-*-linux-x86_64.tar.gz"))
    debs = sorted(out.glob("algenta-host_*_amd64.deb"))
    assert len(tarballs) == 1 and len(debs) == 1, sorted(os.listdir(out))
    return keys, out, str(tarballs[0]), str(debs[0])


def unpack_tarball(tarball, directory):
    os.makedirs(directory)
    with tarfile.open(tarball) as tar:
        tar.extractall(directory)
    (top,) = os.listdir(directory)
    return os.path.join(directory, top)


@pytest.fixture(scope="session")
def from_tarball(release, tmp_path_factory):
    work = tmp_path_factory.mktemp("from-tarball")
    root = unpack_tarball(release[2], str(work / "unpacked"))
    return Installed(root, debian=False, home=str(work / "home"))


@pytest.fixture(scope="session")
def from_deb(release, tmp_path_factory):
    work = tmp_path_factory.mktemp("from-deb")
    root = str(work / "unpacked")
    r = run(["dpkg-deb", "-x", release[3], root])
    assert r.returncode == 0, r.stderr
    return Installed(root, debian=True, home=str(work / "home"))
