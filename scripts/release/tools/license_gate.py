#!/usr/bin/env python3
"""The license gate and SBOM of a release tree, from the artifact itself.

Walks every ELF file of TREE (the relocatable layout: bin/, lib/, etc/,
share/): the file itself, its ldd closure (with the library directories of
etc/algenta/host.json searched), the statically linked and header-only
components its symbol table shows, and the libraries it opens by name at run
time. Each is matched to a row of components.json; a component that matches
no row, whose license is not approved for the way it enters the release,
whose version or notice cannot be found, or that may not be redistributed
but would be, fails the gate, naming it. On success the notices go to
share/licenses/ and an SPDX 2.3 JSON document is written.
Exit codes: 0 passed, 1 refused (each reason on stderr), 2 usage error."""
import argparse
import fnmatch
import glob
import hashlib
import json
import os
import re
import shutil
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import elf_facts  # noqa: E402

WAYS = ("bundled", "static", "system", "host-provided", "runtime-loaded")
SBOM_RELATIVE = "share/doc/algenta-host/sbom.spdx.json"
LICENSES_RELATIVE = "share/licenses"


def slug(name):
    return re.sub(r"[^A-Za-z0-9.-]+", "-", name.replace("+", "p")).strip("-")


def load_approved(path):
    approved = {}
    with open(path, encoding="utf-8") as f:
        for number, raw in enumerate(f, 1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            words = line.split()
            ways = [w for w in words if w in WAYS]
            license_id = " ".join(w for w in words if w not in WAYS)
            approved[license_id] = set(ways) or set(WAYS)
    return approved


def host_library_dirs(tree):
    config = os.path.join(tree, "etc", "algenta", "host.json")
    if not os.path.exists(config):
        return []
    with open(config, encoding="utf-8") as f:
        return list(json.load(f).get("library_directories", []))


class Resolver:
    """Turns a component's version and notice sources into facts."""

    def __init__(self, source_dir, cuda_home, project_version):
        self.source_dir = source_dir
        self.cuda_home = cuda_home
        self.project_version = project_version

    def version(self, probes):
        for probe in probes:
            value = self._probe(probe)
            if value:
                return value
        return None

    def _probe(self, probe):
        if probe.get("project"):
            return self.project_version
        if "text" in probe:
            return probe["text"]
        if "dpkg" in probe:
            code, out, _ = elf_facts.run(["dpkg-query", "-W", "-f=${Version}", probe["dpkg"]])
            return out.strip() if code == 0 and out.strip() else None
        if "cuda_version_json" in probe:
            try:
                with open(os.path.join(self.cuda_home, "version.json"), encoding="utf-8") as f:
                    return json.load(f)[probe["cuda_version_json"]]["version"]
            except (OSError, KeyError, ValueError):
                return None
        if "dist_info" in probe:
            found = sorted(glob.glob(os.path.join(self.cuda_home, "dist-info",
                                                  probe["dist_info"] + "-*.dist-info")))
            if found:
                return os.path.basename(found[-1])[len(probe["dist_info"]) + 1:-len(".dist-info")]
            return None
        if probe.get("nvcc"):
            code, out, _ = elf_facts.run([os.path.join(self.cuda_home, "bin", "nvcc"), "--version"])
            m = re.search(r"release [0-9.]+, V([0-9.]+)", out) if code == 0 else None
            return m.group(1) if m else None
        return None

    def notice(self, candidates):
        for candidate in candidates:
            pattern = candidate.replace("$CUDA_HOME", self.cuda_home)
            if not os.path.isabs(pattern):
                pattern = os.path.join(self.source_dir, pattern)
            found = sorted(glob.glob(pattern))
            if found and os.path.isfile(found[0]):
                return found[0]
        return None


def debian_purl(component, version):
    for probe in component.get("version", []):
        if "dpkg" in probe and version:
            return f"pkg:deb/debian/{probe['dpkg']}@{version}?arch=amd64"
    return None


def file_digests(path):
    sha1, sha256 = hashlib.sha1(), hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            sha1.update(block)
            sha256.update(block)
    return sha1.hexdigest(), sha256.hexdigest()


class Gate:
    def __init__(self, tree, components, approved, resolver):
        self.tree = tree
        self.components = components
        self.approved = approved
        self.resolver = resolver
        self.problems = []
        # component name -> {"files": set, "sonames": set, "links": {(file, kind)}}
        self.used = {}

    def refuse(self, message):
        self.problems.append(message)

    def _use(self, component, file, kind, soname=None):
        entry = self.used.setdefault(component["name"], {"sonames": set(), "links": set()})
        entry["links"].add((file, kind))
        if soname:
            entry["sonames"].add(soname)

    def _by_file(self, relative):
        for c in self.components:
            if any(fnmatch.fnmatchcase(relative, p) for p in c.get("match", {}).get("files", [])):
                return c
        return None

    def _by_soname(self, soname):
        for c in self.components:
            if any(re.search(p, soname) for p in c.get("match", {}).get("sonames", [])):
                return c
        return None

    def walk(self):
        library_dirs = host_library_dirs(self.tree)
        for relative in sorted(glob.glob("**/libcuda.so*", root_dir=self.tree, recursive=True)):
            self.refuse(f"{relative}: libcuda is never bundled (the driver's own library must "
                        "come from the machine)")
        for relative in elf_facts.elf_files(self.tree):
            path = os.path.join(self.tree, relative)
            own = self._by_file(relative)
            if own is None:
                self.refuse(f"{relative}: unknown component (an ELF file no row of "
                            "components.json names)")
                continue
            self._use(own, relative, "CONTAINS")
            self._closure(relative, path, library_dirs)
            self._static(relative, path)

    def _closure(self, relative, path, library_dirs):
        for soname, resolved in sorted(elf_facts.ldd_closure(path, library_dirs).items()):
            if resolved and os.path.realpath(resolved).startswith(os.path.realpath(self.tree) + os.sep):
                continue  # a file of the artifact: judged as a file
            component = self._by_soname(soname)
            if component is None:
                where = resolved or "not found by ldd"
                self.refuse(f"{relative}: needs {soname} ({where}), an unknown component "
                            "(no row of components.json matches its soname)")
                continue
            self._use(component, relative, "DYNAMIC_LINK", soname)

    def _static(self, relative, path):
        symbols = elf_facts.static_symbols(path)
        strings = None
        for c in self.components:
            match = c.get("match", {})
            if match.get("symbols") and any(re.search(p, symbols, re.M) for p in match["symbols"]):
                self._use(c, relative, "STATIC_LINK")
            if match.get("strings"):
                if strings is None:
                    strings = elf_facts.printable_strings(path)
                if any(re.search(p, strings, re.M) for p in match["strings"]):
                    self._use(c, relative, "DEPENDS_ON")

    def judge(self):
        """Version, license, notice, redistribution of each component used."""
        facts = {}
        for c in self.components:
            if c["name"] not in self.used:
                continue
            name, way = c["name"], c.get("redistribution")
            if way not in WAYS:
                self.refuse(f"component {name}: redistribution {way!r} is not one of {', '.join(WAYS)}")
                continue
            license_id = c.get("license") or ""
            if not license_id or license_id in ("NONE", "NOASSERTION"):
                self.refuse(f"component {name}: unlicensed (components.json gives no license)")
            elif license_id not in self.approved:
                self.refuse(f"component {name}: license {license_id} is not approved "
                            "(scripts/release/approved-licenses.txt)")
            elif way not in self.approved[license_id]:
                allowed = ", ".join(sorted(self.approved[license_id]))
                self.refuse(f"component {name}: license {license_id} is approved only as "
                            f"{allowed}, not {way}")
            if way in ("bundled", "static") and c.get("may_redistribute") is not True:
                self.refuse(f"component {name}: would be redistributed ({way}) but "
                            "components.json does not say it may be")
            version = self.resolver.version(c.get("version", []))
            if not version:
                self.refuse(f"component {name}: version unknown (tried {c.get('version', [])})")
            notice = self.resolver.notice(c.get("notice", []))
            if notice is None and way in ("bundled", "static", "system"):
                self.refuse(f"component {name}: no notice found (tried {c.get('notice', [])})")
            if not c.get("source"):
                self.refuse(f"component {name}: no source location")
            facts[name] = {"version": version, "notice": notice}
        return facts


def copy_notices(tree, facts):
    directory = os.path.join(tree, LICENSES_RELATIVE)
    os.makedirs(directory, exist_ok=True)
    written = {}
    for name, fact in sorted(facts.items()):
        if not fact["notice"]:
            continue
        target = os.path.join(directory, slug(name) + ".txt")
        shutil.copyfile(fact["notice"], target)
        os.chmod(target, 0o644)
        written[name] = os.path.relpath(target, tree)
    return written


def write_copyright(tree, gate, facts, notices):
    """share/doc/algenta-host/copyright in Debian's machine-readable format:
    each component of the release, its license and where its notice is."""
    components = {c["name"]: c for c in gate.components}
    lines = ["Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/",
             "Upstream-Name: algenta-host",
             "Comment: Components this release contains or needs (version, way in,",
             " license, notice); the SPDX SBOM is sbom.spdx.json beside this file."]
    for name in sorted(gate.used):
        c = components[name]
        lines.append(f" {name} {facts[name]['version']} ({c['redistribution']}): {c['license']};"
                     f" notice {notices.get(name, 'not shipped')}")
    lines += ["", "Files: *", "Copyright: the algenta-host authors",
              f"License: {components['algenta-host']['license']}",
              f" See {notices.get('algenta-host', 'share/licenses/')}."]
    target = os.path.join(tree, "share", "doc", "algenta-host", "copyright")
    os.makedirs(os.path.dirname(target), exist_ok=True)
    with open(target, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    os.chmod(target, 0o644)


def sbom_document(tree, project_version, gate, facts, notices, created_epoch):
    files, relationships, packages, extracted = [], [], [], {}
    file_ids = {}
    for root, dirs, names in os.walk(tree):
        dirs.sort()
        for n in sorted(names):
            path = os.path.join(root, n)
            relative = os.path.relpath(path, tree)
            if relative == SBOM_RELATIVE or os.path.islink(path):
                continue
            sha1, sha256 = file_digests(path)
            spdx_id = "SPDXRef-File-" + slug(relative)
            file_ids[relative] = spdx_id
            files.append({"fileName": "./" + relative, "SPDXID": spdx_id,
                          "checksums": [{"algorithm": "SHA1", "checksumValue": sha1},
                                        {"algorithm": "SHA256", "checksumValue": sha256}],
                          "licenseConcluded": "NOASSERTION", "copyrightText": "NOASSERTION"})
    components = {c["name"]: c for c in gate.components}
    for name in sorted(gate.used):
        c, fact = components[name], facts.get(name, {})
        spdx_id = "SPDXRef-Package-" + slug(name)
        refs = [{"referenceCategory": "OTHER", "referenceType": "elf-soname",
                 "referenceLocator": s} for s in sorted(gate.used[name]["sonames"])]
        purl = debian_purl(c, fact.get("version"))
        if purl:
            refs.append({"referenceCategory": "PACKAGE-MANAGER", "referenceType": "purl",
                         "referenceLocator": purl})
        comment = f"redistribution: {c['redistribution']}"
        if name in notices:
            comment += f"; notice: {notices[name]}"
        if c.get("comment"):
            comment += "; " + c["comment"]
        package = {"name": name, "SPDXID": spdx_id, "versionInfo": fact.get("version") or "NOASSERTION",
                   "supplier": c.get("supplier", "NOASSERTION"),
                   "downloadLocation": c.get("source") or "NOASSERTION", "filesAnalyzed": False,
                   "licenseConcluded": c["license"], "licenseDeclared": c["license"],
                   "copyrightText": "NOASSERTION", "comment": comment}
        if refs:
            package["externalRefs"] = refs
        packages.append(package)
        for license_ref in re.findall(r"LicenseRef-[A-Za-z0-9.-]+", c["license"]):
            text = "See " + notices[name] if name in notices else "See " + (c.get("source") or "")
            extracted.setdefault(license_ref, {"licenseId": license_ref, "extractedText": text})
        for file, kind in sorted(gate.used[name]["links"]):
            if kind == "CONTAINS":
                relationships.append({"spdxElementId": spdx_id, "relationshipType": "CONTAINS",
                                      "relatedSpdxElement": file_ids[file]})
            else:
                relationships.append({"spdxElementId": file_ids[file], "relationshipType": kind,
                                      "relatedSpdxElement": spdx_id})
    own = "SPDXRef-Package-algenta-host"
    relationships.insert(0, {"spdxElementId": "SPDXRef-DOCUMENT", "relationshipType": "DESCRIBES",
                             "relatedSpdxElement": own})
    listing = hashlib.sha256("\n".join(f["fileName"] + f["checksums"][1]["checksumValue"]
                                       for f in files).encode()).hexdigest()
    return {
        "spdxVersion": "SPDX-2.3", "dataLicense": "CC0-1.0", "SPDXID": "SPDXRef-DOCUMENT",
        "name": f"algenta-host-{project_version}-linux-x86_64",
        "documentNamespace": f"https://spdx.org/spdxdocs/algenta-host-{project_version}-{listing}",
        "creationInfo": {"created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(created_epoch)),
                         "creators": ["Tool: algenta-host scripts/release/tools/license_gate.py"]},
        "documentDescribes": [own],
        "packages": packages, "files": files, "relationships": relationships,
        "hasExtractedLicensingInfos": sorted(extracted.values(), key=lambda e: e["licenseId"]),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("tree", help="release tree (bin/, lib/, etc/, share/)")
    parser.add_argument("--project-version", required=True)
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser.add_argument("--components", default=os.path.join(here, "components.json"))
    parser.add_argument("--approved", default=os.path.join(here, "approved-licenses.txt"))
    parser.add_argument("--source-dir", default=os.path.dirname(os.path.dirname(here)),
                        help="checkout, for notices named relative to it")
    parser.add_argument("--cuda-home", default=os.environ.get("CUDA_HOME", "/usr/local/cuda"))
    parser.add_argument("--sbom-copy", help="also write the SBOM here (e.g. into the build tree)")
    args = parser.parse_args()

    with open(args.components, encoding="utf-8") as f:
        components = json.load(f)["components"]
    gate = Gate(args.tree, components, load_approved(args.approved),
                Resolver(args.source_dir, args.cuda_home, args.project_version))
    gate.walk()
    facts = gate.judge()
    if gate.problems:
        for problem in gate.problems:
            print(f"license gate: {problem}", file=sys.stderr)
        print(f"license gate: refused ({len(gate.problems)} problems)", file=sys.stderr)
        return 1
    notices = copy_notices(args.tree, facts)
    write_copyright(args.tree, gate, facts, notices)
    epoch = int(os.environ.get("SOURCE_DATE_EPOCH", "0") or 0)
    document = sbom_document(args.tree, args.project_version, gate, facts, notices, epoch)
    text = json.dumps(document, indent=2, sort_keys=True) + "\n"
    for target in filter(None, [os.path.join(args.tree, SBOM_RELATIVE), args.sbom_copy]):
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(target, 0o644)
    for name in sorted(gate.used):
        c = next(x for x in components if x["name"] == name)
        print(f"license gate: {name} {facts[name]['version']} {c['license']} ({c['redistribution']})")
    print(f"license gate: passed, {len(gate.used)} components; SBOM {SBOM_RELATIVE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
