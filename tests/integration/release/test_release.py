"""The release as operators get it: the tarball and the .deb, unpacked into
fresh directories outside the checkout, run doctor, conform, prepare,
generate, verify (oracle) and serve with a bare environment, and give the
same tokens as the build tree. The license gate and the inspection pass on
the real artifacts and fail on broken ones."""
import glob
import json
import os
import http.client
import shutil
import subprocess
import time

import pytest

from conftest import (BUILD_DIR, BUILD_HOST, CUDA_PLUGINS, SOURCE_DIR, TEST_PLUGINS, run,
                      unpack_tarball)
from make_serve_checkpoint import make as make_serve_checkpoint

PROMPT_IDS = "1,2,3,4,5"
TRANSFORMERS_REFERENCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                      "fixtures", "serve", "transformers_chat_tiny.json")
CUDA_NAMES = ["cuda_sm75", "cuda_sm80", "cuda_sm89", "cuda_sm90a"]


@pytest.fixture(scope="session")
def checkpoint(tmp_path_factory):
    """A small qwen3 checkpoint with a trained tokenizer and chat template."""
    return make_serve_checkpoint(str(tmp_path_factory.mktemp("checkpoint")))


@pytest.fixture(params=["tarball", "deb"])
def installed(request):
    return request.getfixturevalue("from_" + request.param)


def build_tree_run(tmp_path, *args):
    return run([BUILD_HOST, "--state-file", tmp_path / "build-state.json", *args])


@pytest.fixture(scope="session")
def build_tree_tokens(checkpoint, tmp_path_factory):
    work = tmp_path_factory.mktemp("build-tree")
    out = work / "prepared"
    assert build_tree_run(work, "prepare", checkpoint, "--out", out).returncode == 0
    r = build_tree_run(work, "generate", "--model", out, "--plugin", "cpu_oracle",
                       "--prompt-ids", PROMPT_IDS, "--max-tokens", "8")
    assert r.returncode == 0, r.stderr
    return str(out), r.stdout.strip()


def test_tarball_holds_the_release_layout(from_tarball, release):
    keys = release[0]
    root = from_tarball.root
    assert os.path.basename(root).startswith("algenta-host-")
    assert os.path.basename(root).endswith("-linux-x86_64")
    for name in ["bin/algenta-host", "bin/algenta-sign", "etc/algenta/host.json",
                 "share/doc/algenta-host/README.md", "share/doc/algenta-host/ABI_CHANGELOG.md",
                 "share/doc/algenta-host/release.md", "share/doc/algenta-host/sbom.spdx.json",
                 "lib/algenta/plugins/vendor/manifest.json",
                 "lib/algenta/plugins/vendor/manifest.json.sig"]:
        assert os.path.isfile(os.path.join(root, name)), name
    plugins = sorted(os.path.basename(p) for p in glob.glob(from_tarball.bundle + "/*.so"))
    expected = ["cpu_oracle"] + (CUDA_NAMES if CUDA_PLUGINS else [])
    assert plugins == sorted(f"libalgenta_{n}.so" for n in expected)
    assert os.listdir(from_tarball.keyring) == [keys.key_id + ".pub"]
    with open(os.path.join(from_tarball.bundle, "manifest.json")) as f:
        manifest = json.load(f)
    assert manifest["key_id"] == keys.key_id
    for entry in manifest["plugins"]:
        if entry["name"].startswith("cuda_"):
            assert entry["host_libraries"] == ["libcublasLt.so.13", "libcublas.so.13"]
    licenses = os.listdir(os.path.join(root, "share", "licenses"))
    for component in ["OpenSSL.txt", "ICU.txt", "Oniguruma.txt", "prometheus-cpp.txt",
                      "Boost.txt", "nlohmann-json.txt", "CLI11.txt", "algenta-host.txt"]:
        assert component in licenses


def test_plugins_are_the_build_trees_bytes(from_tarball):
    with open(os.path.join(from_tarball.bundle, "manifest.json")) as f:
        manifest = json.load(f)
    for entry in manifest["plugins"]:
        built = os.path.join(BUILD_DIR, "lib", "algenta", "plugins", "vendor", entry["file"])
        with open(built, "rb") as a, open(os.path.join(from_tarball.bundle, entry["file"]), "rb") as b:
            assert a.read() == b.read(), entry["file"]


def test_no_file_names_the_checkout_or_the_build_tree(from_tarball):
    source, build = os.path.realpath(SOURCE_DIR), os.path.realpath(BUILD_DIR)
    needles = [(p + "/").encode() for p in (source + "/core", source + "/plugins",
                                            source + "/host", build)]
    for dirpath, _, names in os.walk(from_tarball.root):
        for name in names:
            with open(os.path.join(dirpath, name), "rb") as f:
                data = f.read()
            for needle in needles:
                assert needle not in data, f"{name} names {needle.decode()}"


def test_deb_follows_debian_conventions(release):
    deb = release[3]
    control = run(["dpkg-deb", "-f", deb, "Depends"]).stdout
    for package in ["libssl3", "libicu72", "libonig5", "libprometheus-cpp-core1.0", "libstdc++6"]:
        assert package in control, control
    listing = run(["dpkg-deb", "-c", deb]).stdout.splitlines()
    assert listing
    for line in listing:
        mode, owner, _, _, _, name = line.split(None, 5)
        assert name.startswith(("./usr/", "./etc/")) or name == "./", name
        assert owner == "root/root", line
        assert mode[5] != "w" and mode[8] != "w", line
    names = [line.split(None, 5)[5] for line in listing]
    assert any(n.startswith("./etc/algenta/keyring/") and n.endswith(".pub") for n in names)
    assert "./usr/bin/algenta-host" in names
    conffiles = run(["dpkg-deb", "-I", deb, "conffiles"]).stdout.split()
    assert "/etc/algenta/host.json" in conffiles


def test_the_checkout_is_hidden_where_the_machine_allows(installed):
    from conftest import isolation_prefix
    if not isolation_prefix():
        pytest.skip("no mount namespace here: the unpacked release runs with a bare "
                    "environment only")
    # What the unpacked release's commands see of the checkout and the build tree: nothing.
    r = run(installed.command("/usr/bin/find", SOURCE_DIR, BUILD_DIR, "-mindepth", "1",
                              "-maxdepth", "1"), env=installed.env())
    assert r.stdout == "", r.stdout
    assert run(["/usr/bin/find", SOURCE_DIR, "-maxdepth", "1"]).stdout != ""  # visible outside


def test_doctor_uses_the_unpacked_configuration(installed):
    r = installed.run("doctor")
    assert f"keyring: {installed.keyring}" in r.stdout, r.stdout + r.stderr
    assert "accepted (version" in r.stdout, r.stdout + r.stderr


def test_operator_commands_run_from_the_unpacked_release(installed, checkpoint, build_tree_tokens,
                                                         tmp_path):
    r = installed.run("conform", checkpoint, "--backend", "cpu_oracle", "--probe")
    assert r.returncode == 0, r.stdout + r.stderr
    prepared = tmp_path / "prepared"
    r = installed.run("prepare", checkpoint, "--out", prepared)
    assert r.returncode == 0, r.stderr
    r = installed.run("generate", "--model", prepared, "--plugin", "cpu_oracle",
                      "--prompt-ids", PROMPT_IDS, "--max-tokens", "8")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == build_tree_tokens[1]
    # The transformers fp32 reference committed for this checkpoint (made on a
    # GPU machine by tests/gpu/serve_check.sh), copied out of the checkout.
    reference = tmp_path / "transformers_reference.json"
    shutil.copyfile(TRANSFORMERS_REFERENCE, reference)
    r = installed.run("verify", "--model", prepared, "--plugin", "cpu_oracle", "--allow-oracle",
                      "--transformers-reference", reference, "--lengths", "7", "--tokens", "8",
                      "--json", tmp_path / "verify.json")
    assert r.returncode == 0, r.stdout + r.stderr
    result = json.loads((tmp_path / "verify.json").read_text())
    verdicts = [(g["gate"], g["verdict"]) for g in result["gates"]]
    assert verdicts[:3] == [("oracle", "PASS"), ("repeat", "PASS"), ("concurrent", "PASS")], verdicts
    # The oracle draws sampled tokens itself, so its sampler is judged too.
    assert verdicts[3:] == [("transformers", "PASS"), ("sampling", "PASS")], verdicts
    assert r.stdout.count("transformers ") == 5, r.stdout  # one line per chat prompt


def serve_completion(command, cwd, env):
    """The text of one greedy completion from `algenta-host serve`."""
    proc = subprocess.Popen([str(c) for c in command], cwd=cwd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    try:
        line = proc.stdout.readline()
        assert line.startswith("listening on "), line
        port = int(line.rsplit(":", 1)[1])
        deadline = time.monotonic() + 60
        while True:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            try:
                conn.request("GET", "/ready")
                if conn.getresponse().status == 200:
                    break
            except OSError:
                pass
            assert time.monotonic() < deadline and proc.poll() is None
            time.sleep(0.05)
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        body = json.dumps({"model": "m", "prompt": "hello", "max_tokens": 8, "temperature": 0})
        conn.request("POST", "/v1/completions", body=body,
                     headers={"Content-Type": "application/json"})
        response = conn.getresponse()
        data = json.loads(response.read())
        assert response.status == 200, data
        return data["choices"][0]["text"]
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_serve_answers_as_from_the_build_tree(installed, build_tree_tokens, tmp_path):
    served = ["serve", "--model", build_tree_tokens[0], "--plugin", "cpu_oracle",
              "--allow-oracle", "--host", "127.0.0.1", "--port", "0",
              "--served-model-name", "m"]
    env = {k: v for k, v in os.environ.items() if k != "ALGENTA_API_KEYS"}
    expected = serve_completion([BUILD_HOST, "--state-file", tmp_path / "s.json", *served],
                                tmp_path, env)
    assert serve_completion(installed.command(installed.host, *served), installed.root,
                            installed.env()) == expected


def test_reports_are_written_into_the_build_tree(release):
    reports = os.path.join(BUILD_DIR, "release")
    with open(os.path.join(reports, "sbom.spdx.json")) as f:
        sbom = json.load(f)
    assert sbom["spdxVersion"] == "SPDX-2.3"
    names = {p["name"] for p in sbom["packages"]}
    assert {"algenta-host", "OpenSSL", "ICU", "Oniguruma", "prometheus-cpp", "Boost",
            "nlohmann/json", "CLI11", "glibc", "libstdc++"} <= names
    if CUDA_PLUGINS:
        assert {"cuBLAS", "cuBLASLt", "CUDA Runtime (static)"} <= names
    ids = {sbom["SPDXID"]} | {p["SPDXID"] for p in sbom["packages"]} | \
        {f["SPDXID"] for f in sbom["files"]}
    assert len(ids) == 1 + len(sbom["packages"]) + len(sbom["files"])
    for r in sbom["relationships"]:
        assert r["spdxElementId"] in ids and r["relatedSpdxElement"] in ids, r
    for package in sbom["packages"]:
        assert package["downloadLocation"], package["name"]
        for field in ["name", "versionInfo", "licenseConcluded", "supplier"]:
            assert package[field] not in ("", "NOASSERTION"), (package["name"], field)
    refs = {e["licenseId"] for e in sbom["hasExtractedLicensingInfos"]}
    for package in sbom["packages"]:
        for ref in [w for w in package["licenseConcluded"].split() if w.startswith("LicenseRef-")]:
            assert ref in refs, ref
    for f in sbom["files"]:
        assert {c["algorithm"] for c in f["checksums"]} == {"SHA1", "SHA256"}
    for report in ["inspection-tarball.txt", "inspection-deb.txt"]:
        with open(os.path.join(reports, report)) as f:
            assert f.read().rstrip().endswith("inspect-release: passed")


def inspect(artifact):
    return run([os.path.join(SOURCE_DIR, "scripts", "inspect-release"), artifact])


def test_inspection_refuses_a_plugin_with_a_runpath(release, tmp_path):
    root = unpack_tarball(release[2], str(tmp_path / "broken"))
    plugin = os.path.join(root, "lib", "algenta", "plugins", "vendor", "libalgenta_cpu_oracle.so")
    assert run(["patchelf", "--set-rpath", "$ORIGIN/../evil", plugin]).returncode == 0
    r = inspect(root)
    assert r.returncode == 1
    assert ("FAIL lib/algenta/plugins/vendor/libalgenta_cpu_oracle.so: RUNPATH $ORIGIN/../evil"
            in r.stderr), r.stderr


def test_inspection_refuses_a_bundled_libcuda_and_an_extra_export(release, tmp_path):
    root = unpack_tarball(release[2], str(tmp_path / "broken"))
    shutil.copyfile(os.path.join(TEST_PLUGINS, "libacme_engine.so"),
                    os.path.join(root, "lib", "libcuda.so.1"))
    plugin = os.path.join(root, "lib", "algenta", "plugins", "vendor", "libalgenta_cpu_oracle.so")
    unknown = glob.glob(os.path.join(BUILD_DIR, "test-libraries", "libalgenta_testdep.so.*"))[0]
    shutil.copyfile(unknown, plugin)
    r = inspect(root)
    assert r.returncode == 1
    assert "FAIL lib/libcuda.so.1: libcuda is bundled" in r.stderr, r.stderr
    assert "FAIL lib/algenta/plugins/vendor/libalgenta_cpu_oracle.so: exports " in r.stderr
    assert "libalgenta_cpu_oracle.so: sha256 " in r.stderr  # no longer the SBOM's file


def test_inspection_refuses_a_plugin_needing_an_undeclared_library(release, tmp_path):
    root = unpack_tarball(release[2], str(tmp_path / "broken"))
    shutil.copyfile(os.path.join(TEST_PLUGINS, "libacme_needs_dep.so"),
                    os.path.join(root, "lib", "algenta", "plugins", "vendor", "libacme_needs_dep.so"))
    r = inspect(root)
    assert r.returncode == 1
    name = "FAIL lib/algenta/plugins/vendor/libacme_needs_dep.so: "
    assert name + "NEEDED libalgenta_testdep.so.1 is not found" in r.stderr, r.stderr
    assert (name + "undefined symbol algenta_test_dependency_answer is defined by none of its "
            "libraries") in r.stderr, r.stderr
    assert name + "is not listed in its bundle's manifest.json" in r.stderr


def test_the_license_gate_refuses_an_unknown_library(release, tmp_path):
    keys = release[0]
    unknown = glob.glob(os.path.join(BUILD_DIR, "test-libraries", "libalgenta_testdep.so*"))[0]
    r = run([os.path.join(SOURCE_DIR, "scripts", "package"), "--build-dir", BUILD_DIR,
             "--out", tmp_path / "out", "--key", keys.private, "--public", keys.public,
             "--no-deb", "--add", f"{unknown}=lib/algenta/libmystery.so.1"])
    assert r.returncode != 0
    assert ("license gate: lib/algenta/libmystery.so.1: unknown component" in r.stderr), r.stderr
    assert not glob.glob(str(tmp_path / "out" / "*.tar.gz"))


def test_the_license_gate_refuses_an_unapproved_license(release, tmp_path):
    root = unpack_tarball(release[2], str(tmp_path / "tree"))
    approved = tmp_path / "approved.txt"
    with open(os.path.join(SOURCE_DIR, "scripts", "release", "approved-licenses.txt")) as f:
        approved.write_text("".join(l for l in f if not l.startswith("BSL-1.0")))
    r = run(["python3", os.path.join(SOURCE_DIR, "scripts", "release", "tools", "license_gate.py"), root,
             "--project-version", "0", "--approved", approved])
    assert r.returncode == 1
    assert "component Boost: license BSL-1.0 is not approved" in r.stderr, r.stderr
