#!/usr/bin/env python3
"""Says where two builds of one ELF file differ: the sections whose bytes
differ, the first differing offsets, and printable strings found in only one
of them (paths and temporary names usually show up there)."""
import re
import subprocess
import sys


def sections(path):
    out = subprocess.run(["readelf", "-S", "-W", path], capture_output=True, text=True).stdout
    found = []
    for line in out.splitlines():
        m = re.match(r"\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+[0-9a-f]+\s+([0-9a-f]+)\s+([0-9a-f]+)", line)
        if m:
            name, offset, size = m.group(1), int(m.group(2), 16), int(m.group(3), 16)
            found.append((name, offset, size))
    return found


def strings(path):
    out = subprocess.run(["strings", "-a", "-n", "8", path], capture_output=True, text=True).stdout
    return set(out.splitlines())


def main():
    a, b = sys.argv[1], sys.argv[2]
    with open(a, "rb") as f:
        da = f.read()
    with open(b, "rb") as f:
        db = f.read()
    if len(da) != len(db):
        print(f"  sizes differ: {len(da)} vs {len(db)} bytes")
    differing = [i for i in range(min(len(da), len(db))) if da[i] != db[i]]
    for name, offset, size in sections(a):
        count = sum(1 for i in differing if offset <= i < offset + size)
        if count:
            print(f"  section {name}: {count} bytes differ")
    for i in differing[:8]:
        print(f"  offset {i:#x}: {da[i]:#04x} vs {db[i]:#04x}")
    only_a, only_b = strings(a) - strings(b), strings(b) - strings(a)
    for s in sorted(only_a)[:10]:
        print(f"  only in the first: {s[:120]}")
    for s in sorted(only_b)[:10]:
        print(f"  only in the second: {s[:120]}")


if __name__ == "__main__":
    main()
