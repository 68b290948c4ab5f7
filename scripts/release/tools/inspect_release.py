#!/usr/bin/env python3
"""Inspects a release artifact (a .tar.gz, a .deb or an unpacked tree) with
readelf -d, ldd and nm on every ELF file:
  - no RPATH/RUNPATH, except absolute system library directories in
    executables (plugins carry none at all);
  - each plugin exports exactly algenta_plugin_entry;
  - every NEEDED library resolves; a plugin's libraries are system ones or the
    host libraries its signed manifest entry declares;
  - no undefined dynamic symbol that the declared libraries do not define;
  - libcuda is neither bundled nor NEEDED (the host opens the driver's);
  - the closure and the ELF files equal what the SBOM lists.
Each violation is printed as "FAIL <file>: <entry>"; exit 1 if any, else 0."""
import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import elf_facts  # noqa: E402

PLUGIN_ENTRY = "algenta_plugin_entry"
SBOM_RELATIVE = "share/doc/algenta-host/sbom.spdx.json"


class Layout:
    """Where the relocatable names (bin/, lib/, etc/, share/) are in an
    unpacked artifact: the tarball's top directory, or usr/ + etc/ of a .deb."""

    def __init__(self, root):
        self.root = root
        self.debian = os.path.isdir(os.path.join(root, "usr", "bin"))

    def path(self, relative):
        if self.debian and not relative.startswith("etc/"):
            return os.path.join(self.root, "usr", relative)
        return os.path.join(self.root, relative)

    def relative(self, path):
        name = os.path.relpath(path, self.root)
        return name[len("usr/"):] if self.debian and name.startswith("usr/") else name


def unpack(artifact, scratch):
    if os.path.isdir(artifact):
        root = artifact
    elif artifact.endswith(".deb"):
        root = os.path.join(scratch, "deb")
        subprocess.run(["dpkg-deb", "-x", artifact, root], check=True)
    else:
        with tarfile.open(artifact) as tar:
            tar.extractall(scratch, filter="tar") if hasattr(tarfile, "data_filter") \
                else tar.extractall(scratch)
        root = scratch
    entries = [e for e in os.listdir(root) if not e.startswith(".")]
    if not os.path.isdir(os.path.join(root, "bin")) and not os.path.isdir(os.path.join(root, "usr")) \
            and len(entries) == 1:
        root = os.path.join(root, entries[0])
    return Layout(root)


def is_system_path(resolved):
    return resolved is not None and os.path.dirname(os.path.realpath(resolved)) in {
        os.path.realpath(d) for d in elf_facts.SYSTEM_LIBRARY_DIRS if os.path.isdir(d)}


class Inspection:
    def __init__(self, layout):
        self.layout = layout
        self.failures = []
        self.notes = []
        self.exported = {}  # resolved library -> defined dynamic symbols
        self.summaries = {}  # relative path -> what was checked
        self.closure_sonames = set()

    def fail(self, file, entry):
        self.failures.append(f"FAIL {file}: {entry}")

    def library_dirs(self):
        config = self.layout.path("etc/algenta/host.json")
        if not os.path.exists(config):
            return []
        with open(config, encoding="utf-8") as f:
            return list(json.load(f).get("library_directories", []))

    def declared_host_libraries(self):
        """plugin relative path -> host libraries its signed manifest declares."""
        declared = {}
        plugins_root = self.layout.path("lib/algenta/plugins")
        if not os.path.isdir(plugins_root):
            return declared
        for bundle in sorted(os.listdir(plugins_root)):
            manifest = os.path.join(plugins_root, bundle, "manifest.json")
            if not os.path.isfile(manifest):
                continue
            with open(manifest, encoding="utf-8") as f:
                for entry in json.load(f).get("plugins", []):
                    relative = f"lib/algenta/plugins/{bundle}/{entry['file']}"
                    declared[relative] = set(entry.get("host_libraries", []))
        return declared

    def defined_by(self, resolved):
        if resolved not in self.exported:
            self.exported[resolved] = elf_facts.dynamic_symbols(resolved, defined=True)
        return self.exported[resolved]

    def run(self):
        tree_root = self.layout.root
        for dirpath, _, names in os.walk(tree_root):
            for n in names:
                if n.startswith("libcuda.so"):
                    self.fail(self.layout.relative(os.path.join(dirpath, n)),
                              "libcuda is bundled (the host must open the driver's own)")
        declared = self.declared_host_libraries()
        library_dirs = self.library_dirs()
        files = [os.path.join(tree_root, f) for f in elf_facts.elf_files(tree_root)]
        self.elf = {}
        for path in files:
            relative = self.layout.relative(path)
            self.elf[relative] = path
            self.inspect_file(relative, path, declared, library_dirs)
        return self.elf

    def inspect_file(self, relative, path, declared, library_dirs):
        is_plugin = relative.startswith("lib/algenta/plugins/")
        dynamic = elf_facts.dynamic_section(path)
        search = ":".join(dynamic.rpath + dynamic.runpath) or "none"
        self.summaries[relative] = (f"NEEDED {' '.join(dynamic.needed) or 'none'}; "
                                    f"RPATH/RUNPATH {search}")
        for tag, entries in (("RPATH", dynamic.rpath), ("RUNPATH", dynamic.runpath)):
            for entry in entries:
                if is_plugin:
                    self.fail(relative, f"{tag} {':'.join(entries)} (plugins carry no search path)")
                    break
                if entry not in elf_facts.SYSTEM_LIBRARY_DIRS:
                    self.fail(relative, f"{tag} entry {entry!r} is not an absolute system "
                                        "library directory")
        if is_plugin:
            exported = elf_facts.dynamic_symbols(path, defined=True)
            if exported != {PLUGIN_ENTRY}:
                extra = sorted(exported - {PLUGIN_ENTRY})
                what = f"exports {', '.join(extra[:5])}" + (" ..." if len(extra) > 5 else "") \
                    if extra else f"does not export {PLUGIN_ENTRY}"
                self.fail(relative, what)
        for soname in dynamic.needed:
            if soname.startswith("libcuda.so"):
                self.fail(relative, f"NEEDED {soname} (libcuda is opened at run time, never linked)")
        closure = elf_facts.ldd_closure(path, library_dirs)
        allowed = declared.get(relative, set())
        for soname, resolved in sorted(closure.items()):
            if resolved is None:
                self.fail(relative, f"NEEDED {soname} is not found")
                continue
            self.closure_sonames.add(soname)
            if soname in dynamic.needed and not is_system_path(resolved):
                if not is_plugin:
                    self.fail(relative, f"NEEDED {soname} resolves outside the system library "
                                        f"directories ({resolved})")
                elif soname not in allowed:
                    self.fail(relative, f"NEEDED {soname} ({resolved}) is not declared in its "
                                        "manifest's host_libraries")
        if is_plugin and relative not in declared:
            self.fail(relative, "is not listed in its bundle's manifest.json")
        provided = set()
        for resolved in closure.values():
            if resolved:
                provided |= self.defined_by(resolved)
        for symbol in sorted(elf_facts.dynamic_symbols(path, defined=False) - provided):
            self.fail(relative, f"undefined symbol {symbol} is defined by none of its libraries "
                                f"({', '.join(sorted(closure))})")

    def compare_with_sbom(self, sbom_path):
        if not os.path.isfile(sbom_path):
            self.fail(SBOM_RELATIVE, "missing")
            return
        with open(sbom_path, encoding="utf-8") as f:
            sbom = json.load(f)
        listed = set()
        for package in sbom.get("packages", []):
            for ref in package.get("externalRefs", []):
                if ref.get("referenceType") == "elf-soname":
                    listed.add(ref["referenceLocator"])
        for soname in sorted(self.closure_sonames - listed):
            self.fail(SBOM_RELATIVE, f"closure library {soname} is not in the SBOM")
        for soname in sorted(listed - self.closure_sonames):
            self.fail(SBOM_RELATIVE, f"lists {soname}, which no ELF file of the artifact needs")
        checksums = {}
        for entry in sbom.get("files", []):
            name = entry["fileName"][2:] if entry["fileName"].startswith("./") else entry["fileName"]
            for c in entry.get("checksums", []):
                if c["algorithm"] == "SHA256":
                    checksums[name] = c["checksumValue"]
        for relative, path in sorted(self.elf.items()):
            with open(path, "rb") as f:
                digest = hashlib.sha256(f.read()).hexdigest()
            if relative not in checksums:
                self.fail(relative, "ELF file not listed in the SBOM")
            elif checksums[relative] != digest:
                self.fail(relative, f"sha256 {digest} differs from the SBOM's {checksums[relative]}")
        for name in sorted(checksums):
            if re.search(r"\.so(\.|$)|^bin/", name) and name not in self.elf:
                self.fail(name, "listed in the SBOM but not in the artifact")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("artifact")
    parser.add_argument("--report", help="also write the report to this file")
    args = parser.parse_args()
    if not os.path.exists(args.artifact):
        print(f"inspect-release: {args.artifact} does not exist", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="inspect-release-") as scratch:
        try:
            layout = unpack(os.path.abspath(args.artifact), scratch)
        except (tarfile.TarError, subprocess.CalledProcessError) as error:
            print(f"inspect-release: {args.artifact} is not a .tar.gz, a .deb or a directory "
                  f"({error})", file=sys.stderr)
            return 2
        inspection = Inspection(layout)
        elf = inspection.run()
        inspection.compare_with_sbom(layout.path(SBOM_RELATIVE))
    lines = [f"inspect-release {os.path.basename(args.artifact)}: {len(elf)} ELF files"]
    lines += [f"  {name}: {inspection.summaries.get(name, '')}" for name in sorted(elf)]
    lines += [f"  closure: {' '.join(sorted(inspection.closure_sonames))}"]
    lines += inspection.failures
    lines.append("inspect-release: " + (f"FAILED ({len(inspection.failures)} violations)"
                                        if inspection.failures else "passed"))
    text = "\n".join(lines) + "\n"
    if args.report:
        os.makedirs(os.path.dirname(os.path.abspath(args.report)), exist_ok=True)
        with open(args.report, "w", encoding="utf-8") as f:
            f.write(text)
    (sys.stderr if inspection.failures else sys.stdout).write(text)
    return 1 if inspection.failures else 0


if __name__ == "__main__":
    sys.exit(main())
