#!/usr/bin/env python3
"""Per-kernel totals of an Nsight Compute raw CSV (--csv --page raw):
calls, total and mean time, share of the profiled time, DRAM bytes and
achieved bandwidth, largest share first.

    summarize_ncu.py FILE.csv [--steps N]   (N: divide totals by N steps)
"""
import argparse
import csv
import re
import sys
from collections import defaultdict


def read_rows(path):
    with open(path, newline="") as handle:
        lines = [line for line in handle if line.startswith('"')]  # ncu's own log lines are not CSV
    if len(lines) < 2:  # nothing was profiled (ncu wrote only its log lines)
        sys.exit(f"{path}: no kernel rows (was anything profiled?)")
    reader = csv.reader(lines)
    header = next(reader)
    units = next(reader)  # the second row names each column's unit
    return header, units, list(reader)


def scale_of(unit, base):
    """Factor turning `unit` into `base` (ns or byte)."""
    factors = {"ns": 1, "us": 1e3, "usecond": 1e3, "ms": 1e6, "msecond": 1e6, "s": 1e9, "second": 1e9,
               "nsecond": 1,
               "byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "KB": 1e3, "MB": 1e6, "GB": 1e9}
    if unit not in factors:
        sys.exit(f"unknown {base} unit {unit!r} in the CSV")
    return factors[unit]


def short_name(kernel):
    name = kernel.replace("(anonymous namespace)::", "")
    name = re.sub(r"^void ", "", name)  # the return type ncu prints before templates
    name = re.sub(r"\(.*", "", name)  # drop the argument list
    name = re.sub(r"<.*", "", name)     # and template arguments
    return name.split("::")[-1].strip() or kernel


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("csv")
    parser.add_argument("--steps", type=int, default=1)
    args = parser.parse_args()
    header, units, rows = read_rows(args.csv)
    col = {name: header.index(name) for name in header}
    time_i = col["gpu__time_duration.sum"]
    read_i = col.get("dram__bytes_read.sum")
    write_i = col.get("dram__bytes_write.sum")
    time_scale = scale_of(units[time_i], "ns")
    totals = defaultdict(lambda: [0, 0.0, 0.0])
    for row in rows:
        entry = totals[short_name(row[col["Kernel Name"]])]
        entry[0] += 1
        entry[1] += float(row[time_i].replace(",", "")) * time_scale
        for index in (read_i, write_i):
            if index is not None and row[index]:
                entry[2] += float(row[index].replace(",", "")) * scale_of(units[index], "byte")
    whole = sum(t for _, t, _ in totals.values())
    print(f"{'kernel':44} {'calls':>6} {'us/step':>9} {'share':>7} {'us/call':>8} {'GB/s':>7}")
    for name, (calls, ns, dram) in sorted(totals.items(), key=lambda item: -item[1][1]):
        print(f"{name[:44]:44} {calls // args.steps:6d} {ns / 1e3 / args.steps:9.1f} "
              f"{100 * ns / whole:6.1f}% {ns / calls / 1e3:8.2f} {dram / ns if ns else 0:7.0f}")
    print(f"{'total':44} {sum(c for c, _, _ in totals.values()) // args.steps:6d} "
          f"{whole / 1e3 / args.steps:9.1f}")


if __name__ == "__main__":
    main()
