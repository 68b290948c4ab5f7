"""The trust lifecycle on an unpacked release, end to end: trust a third
party's key for its own bundle, load, rotate the packager's key (a new
version signed with the new key, the old key revoked), revoke a key, and see
its bundles refused, named."""
import os
import shutil

import pytest

from conftest import TEST_PLUGINS, Installed, Keys, unpack_tarball


@pytest.fixture
def operator(release, tmp_path):
    """A private copy of the unpacked tarball: these tests change its keyring."""
    root = unpack_tarball(release[2], str(tmp_path / "unpacked"))
    return Installed(root, debian=False, home=str(tmp_path / "home"))


def generate_on_oracle(operator, tmp_path):
    return operator.run("generate", "--model", tmp_path / "prepared", "--plugin", "cpu_oracle",
                        "--prompt-ids", "1,2,3", "--max-tokens", "2")


def third_party_bundle(operator, name, keys):
    """The acme test plugin as a bundle `name` signed with `keys`."""
    bundle = os.path.join(operator.prefix, "lib", "algenta", "plugins", name)
    os.makedirs(bundle)
    os.chmod(bundle, 0o755)
    shutil.copyfile(os.path.join(TEST_PLUGINS, "libacme_engine.so"),
                    os.path.join(bundle, "libacme_engine.so"))
    os.chmod(os.path.join(bundle, "libacme_engine.so"), 0o644)
    r = operator.run_sign("sign", "--key", keys.private, "--plugins", bundle)
    assert r.returncode == 0, r.stderr
    return bundle


def test_trust_load_rotate_revoke_refuse(release, operator, tmp_path):
    from make_checkpoint import write_checkpoint
    packager = release[0]
    source = tmp_path / "source"
    write_checkpoint(str(source), "qwen3", "bf16")
    assert operator.run("prepare", source, "--out", tmp_path / "prepared").returncode == 0

    # Trust: a third party's key, for its own bundle only.
    acme = Keys(str(tmp_path), "acme")
    third_party_bundle(operator, "acme", acme)
    impostor = third_party_bundle(operator, "impostor", acme)
    r = operator.run_sign("trust", "--public", acme.public, "--keyring", operator.keyring,
                          "--bundle", "acme")
    assert r.returncode == 0, r.stderr
    doctor = operator.run("doctor").stdout
    assert "acme_engine" in doctor, doctor
    assert (f"signing key {acme.key_id} is trusted only for bundle acme, not for impostor"
            in doctor), doctor
    shutil.rmtree(impostor)

    # Load: the third party's plugin answers what it declares (loaded from its
    # verified bytes); the packager's bundle serves.
    r = operator.run("conform", "--table")
    assert "acme_engine (engine, target sm_86)" in r.stdout, r.stdout + r.stderr
    r = generate_on_oracle(operator, tmp_path)
    assert r.returncode == 0, r.stderr

    # Rotate: a new packager key signs the next version; the old key is revoked.
    old_manifest = open(os.path.join(operator.bundle, "manifest.json"), "rb").read()
    old_signature = open(os.path.join(operator.bundle, "manifest.json.sig"), "rb").read()
    rotated = Keys(str(tmp_path), "packager-2")
    r = operator.run_sign("sign", "--key", rotated.private, "--plugins", operator.bundle)
    assert r.returncode == 0, r.stderr
    assert operator.run_sign("trust", "--public", rotated.public,
                             "--keyring", operator.keyring).returncode == 0
    r = operator.run_sign("revoke", "--public", packager.public, "--keyring", operator.keyring)
    assert r.returncode == 0, r.stderr
    assert not os.path.exists(os.path.join(operator.keyring, packager.key_id + ".pub"))
    r = generate_on_oracle(operator, tmp_path)
    assert r.returncode == 0, r.stderr

    # Refuse: the old release, signed with the revoked key, is refused, named.
    with open(os.path.join(operator.bundle, "manifest.json"), "wb") as f:
        f.write(old_manifest)
    with open(os.path.join(operator.bundle, "manifest.json.sig"), "wb") as f:
        f.write(old_signature)
    r = generate_on_oracle(operator, tmp_path)
    assert r.returncode != 0
    doctor = operator.run("doctor").stdout
    assert f"signing key {packager.key_id} is revoked" in doctor, doctor
    r = operator.run_sign("trust", "--public", packager.public, "--keyring", operator.keyring)
    assert r.returncode == 2 and f"key {packager.key_id} is revoked" in r.stderr

    # Revoke the third party: its bundle is refused, named.
    r = operator.run_sign("revoke", "--public", acme.public, "--keyring", operator.keyring)
    assert r.returncode == 0, r.stderr
    doctor = operator.run("doctor").stdout
    assert f"signing key {acme.key_id} is revoked" in doctor, doctor
    assert "acme_engine" not in operator.run("conform", "--table").stdout
