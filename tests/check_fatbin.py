#!/usr/bin/env python3
"""Checks that a CUDA plugin's .nv_fatbin section carries SASS (an ELF cubin)
and PTX for exactly its own architecture, without needing cuobjdump.

usage: check_fatbin.py PLUGIN.so ARCH     (ARCH: 75, 80, 89 or 90a)
"""
import struct
import subprocess
import sys
import tempfile

FATBIN_MAGIC = 0xBA55ED50
KIND_PTX, KIND_ELF = 1, 2
# Set on entries compiled for an architecture-specific target (sm_90a);
# observed on nvcc 13 output, where plain sm_90 entries lack it.
ARCH_SPECIFIC_FLAG = 0x100000


def fatbin_entries(blob):
    offset = 0
    while offset + 16 <= len(blob):
        magic, _version, header_size, fat_size = struct.unpack_from("<IHHQ", blob, offset)
        if magic != FATBIN_MAGIC:
            break
        p, end = offset + header_size, offset + header_size + fat_size
        while p < end:
            kind, _, entry_header_size, size = struct.unpack_from("<HHIQ", blob, p)
            arch = struct.unpack_from("<I", blob, p + 28)[0]
            flags = struct.unpack_from("<Q", blob, p + 40)[0]
            yield kind, arch, flags
            p += entry_header_size + size
        offset = end


def main():
    plugin, arch_text = sys.argv[1], sys.argv[2]
    want_arch = int(arch_text.rstrip("a"))
    want_specific = arch_text.endswith("a")
    with tempfile.NamedTemporaryFile() as section:
        subprocess.run(["objcopy", "-O", "binary", "--only-section=.nv_fatbin", plugin,
                        section.name], check=True)
        entries = list(fatbin_entries(open(section.name, "rb").read()))
    for kind, arch, flags in entries:
        name = {KIND_PTX: "PTX", KIND_ELF: "SASS"}.get(kind, f"kind {kind}")
        print(f"{name} arch {arch} flags {flags:#x}")
    problems = []
    if not entries:
        problems.append("no fatbin entries found")
    for kind in (KIND_ELF, KIND_PTX):
        if not any(k == kind and a == want_arch for k, a, _ in entries):
            problems.append(f"no {'SASS' if kind == KIND_ELF else 'PTX'} for arch {want_arch}")
    for kind, arch, flags in entries:
        if arch != want_arch:
            problems.append(f"unexpected entry for arch {arch}")
        if bool(flags & ARCH_SPECIFIC_FLAG) != want_specific:
            problems.append(f"entry arch {arch} flags {flags:#x}: arch-specific bit should be "
                            f"{'set' if want_specific else 'clear'} for sm_{arch_text}")
    for p in problems:
        print("FAIL:", p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
