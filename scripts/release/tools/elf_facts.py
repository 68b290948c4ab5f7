"""What the binutils say about the ELF files of a release tree: dynamic
section (readelf -d), resolved closure (ldd), dynamic and static symbols (nm).
Standard library only: it runs on a packaging machine without the test venv."""
import os
import re
import subprocess

ELF_MAGIC = b"\x7fELF"
# Directories the dynamic linker searches by default on Debian x86-64; a
# RUNPATH/RPATH may name only these (and only in executables).
SYSTEM_LIBRARY_DIRS = ("/lib", "/usr/lib", "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
                       "/lib64", "/usr/lib64")


def run(args, env=None):
    result = subprocess.run(args, capture_output=True, text=True, env=env)
    return result.returncode, result.stdout, result.stderr


def is_elf(path):
    if os.path.islink(path) or not os.path.isfile(path):
        return False
    with open(path, "rb") as f:
        return f.read(4) == ELF_MAGIC


def elf_files(tree):
    """Relative paths of every ELF file under `tree`, sorted."""
    found = []
    for root, dirs, files in os.walk(tree):
        dirs.sort()
        for name in sorted(files):
            path = os.path.join(root, name)
            if is_elf(path):
                found.append(os.path.relpath(path, tree))
    return found


class DynamicSection:
    def __init__(self, needed, soname, rpath, runpath):
        self.needed = needed      # list of sonames, in order
        self.soname = soname      # or None
        self.rpath = rpath        # list of entries (DT_RPATH), [] when absent
        self.runpath = runpath    # list of entries (DT_RUNPATH), [] when absent


def dynamic_section(path):
    code, out, err = run(["readelf", "-d", "-W", path])
    if code != 0:
        raise RuntimeError(f"readelf -d {path} failed: {err.strip()}")
    needed, soname, rpath, runpath = [], None, [], []
    for line in out.splitlines():
        m = re.search(r"\((NEEDED|SONAME|RPATH|RUNPATH)\)\s+\S.*?\[(.*)\]", line)
        if not m:
            continue
        tag, value = m.groups()
        if tag == "NEEDED":
            needed.append(value)
        elif tag == "SONAME":
            soname = value
        elif tag == "RPATH":
            rpath = value.split(":")
        else:
            runpath = value.split(":")
    return DynamicSection(needed, soname, rpath, runpath)


def ldd_closure(path, library_dirs=()):
    """{soname: resolved path or None} for the whole closure, as ldd sees it
    with the host's extra library directories (host.json) searched."""
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    env["LD_LIBRARY_PATH"] = ":".join(library_dirs)
    code, out, err = run(["ldd", path], env=env)
    if code != 0 and "not a dynamic executable" in (out + err):
        return {}
    closure = {}
    for line in out.splitlines():
        line = line.strip()
        m = re.match(r"(\S+) => not found", line)
        if m:
            closure[m.group(1)] = None
            continue
        m = re.match(r"(\S+) => (\S+) \(0x", line)
        if m:
            closure[m.group(1)] = m.group(2)
            continue
        m = re.match(r"(/\S+) \(0x", line)  # the dynamic loader itself
        if m:
            closure[os.path.basename(m.group(1))] = m.group(1)
    closure.pop("linux-vdso.so.1", None)
    return closure


def dynamic_symbols(path, defined):
    """Names (version suffix removed) of the dynamic symbols that are defined
    (defined=True) or undefined and not weak (defined=False)."""
    args = ["nm", "-D", "--defined-only" if defined else "--undefined-only", path]
    code, out, err = run(args)
    if code != 0:
        if "no symbols" in err:
            return set()
        raise RuntimeError(f"{' '.join(args)} failed: {err.strip()}")
    names = set()
    for line in out.splitlines():
        parts = line.split()
        if not parts:
            continue
        kind, name = parts[-2], parts[-1]
        if not defined and kind in ("w", "v"):
            continue  # weak references may stay unresolved
        names.add(name.split("@")[0])
    return names


def static_symbols(path):
    """Demangled names of the symbol table (.symtab), empty when stripped."""
    code, out, _ = run(["nm", "-C", "--defined-only", path])
    return out if code == 0 else ""


def printable_strings(path):
    code, out, _ = run(["strings", "-a", "-n", "6", path])
    return out if code == 0 else ""
