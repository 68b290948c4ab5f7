"""Pairs the cells of our bench (schema algenta.bench/2) with the peer's
(algenta.peer/1) and reduces them to the comparison table: per cell and
figure, the median [min..max] over every timed run of every round on each
side, and ours/peer of the medians. Also the peer's calibration against
published decode figures. No torch, no subprocesses: pure functions of the
JSON documents.
"""
from bench_figures import spread_of

OURS_SCHEMA = "algenta.bench/2"
PEER_SCHEMA = "algenta.peer/1"
# (figure key, label, scale for display, display format)
COMPARED = (
    ("decode_tokens_per_s", "decode tok/s", 1.0, "{:.1f}"),
    ("prefill_tokens_per_s", "prefill tok/s", 1.0, "{:.0f}"),
    ("ttft_s", "TTFT ms", 1e3, "{:.2f}"),
)

# Published PyTorch decode rates (batch 1, bf16, H200) the Speed issue names;
# the peer's ratios count only when it reaches CALIBRATION_FRACTION of them.
# A shape is recognised by these config.json facts, wherever the file lives.
PUBLISHED_DECODE = (
    {"name": "Qwen3-0.6B", "decode_tokens_per_s": 548.0,
     "shape": {"model_type": "qwen3", "hidden_size": 1024, "num_hidden_layers": 28,
               "vocab_size": 151936}},
    {"name": "Qwen2.5-7B", "decode_tokens_per_s": 198.0,
     "shape": {"model_type": "qwen2", "hidden_size": 3584, "num_hidden_layers": 28,
               "vocab_size": 152064}},
)
CALIBRATION_PROMPT = 256
CALIBRATION_FRACTION = 0.95


class SchemaError(ValueError):
    pass


def check_schema(document, expected, source):
    schema = document.get("schema") if isinstance(document, dict) else None
    if schema != expected:
        raise SchemaError(f"{source}: schema {schema!r}, expected {expected!r}")
    if not isinstance(document.get("cells"), list):
        raise SchemaError(f"{source}: no \"cells\" list")


def cell_key(cell):
    return (cell["prompt_tokens"], cell["generated_tokens"], cell.get("concurrency", 1))


def pooled_values(documents):
    """{cell key: {figure: [every timed run's value, rounds in order]}}, keys
    in the order the first document that has them lists them."""
    pooled = {}
    for document in documents:
        for cell in document["cells"]:
            figures = pooled.setdefault(cell_key(cell), {})
            for figure, _, _, _ in COMPARED:
                figures.setdefault(figure, []).extend(cell[figure]["values"])
    return pooled


def side_summary(values):
    return {**spread_of(values), "runs": len(values)}


def pair_cells(ours_documents, peer_documents):
    """Rows for the cells both sides measured, in our order, and the keys
    only one side has (each list of (L, G, C))."""
    ours, peer = pooled_values(ours_documents), pooled_values(peer_documents)
    rows = []
    for key in ours:
        if key not in peer:
            continue
        row = {"prompt_tokens": key[0], "generated_tokens": key[1], "concurrency": key[2],
               "figures": {}}
        for figure, _, _, _ in COMPARED:
            o, p = side_summary(ours[key][figure]), side_summary(peer[key][figure])
            row["figures"][figure] = {"ours": o, "peer": p, "ours_over_peer":
                                      o["median"] / p["median"] if p["median"] else None}
        rows.append(row)
    return {"rows": rows,
            "only_ours": [list(k) for k in ours if k not in peer],
            "only_peer": [list(k) for k in peer if k not in ours]}


def published_figure(config):
    for entry in PUBLISHED_DECODE:
        if all(config.get(k) == v for k, v in entry["shape"].items()):
            return entry
    return None


def calibration(config, peer_documents):
    """Does the peer reach CALIBRATION_FRACTION of the published decode rate
    for this shape? Judged on the peer's median decode tok/s (every round)
    at a CALIBRATION_PROMPT-token prompt, batch 1, with the longest G measured
    (the steadiest rate). calibrated: True, False, or None (not checked)."""
    entry = published_figure(config)
    if entry is None:
        names = " and ".join(e["name"] for e in PUBLISHED_DECODE)
        return {"calibrated": None, "text": "peer calibrated: not checked (no published "
                f"figure for this shape; there are for {names})"}
    pooled = pooled_values(peer_documents)
    keys = [k for k in pooled if k[0] == CALIBRATION_PROMPT and k[2] == 1]
    if not keys:
        return {"calibrated": None, "published": entry["decode_tokens_per_s"],
                "text": f"peer calibrated: not checked (no cell with a {CALIBRATION_PROMPT}-"
                        "token prompt at batch 1: add it to --shapes)"}
    key = max(keys, key=lambda k: k[1])
    measured = spread_of(pooled[key]["decode_tokens_per_s"])["median"]
    needed = CALIBRATION_FRACTION * entry["decode_tokens_per_s"]
    calibrated = measured >= needed
    return {"calibrated": calibrated, "published": entry["decode_tokens_per_s"],
            "needed": needed, "measured": measured, "cell": list(key),
            "text": f"peer calibrated: {'yes' if calibrated else 'no'} ({entry['name']} shape: "
                    f"peer decode {measured:.1f} tok/s at L={key[0]} G={key[1]}, needs "
                    f"{needed:.1f} = {CALIBRATION_FRACTION:.0%} of the published "
                    f"{entry['decode_tokens_per_s']:.0f})"
                    + ("" if calibrated else "; the ratios below do not count")}


def ranged(summary, scale, pattern):
    return (pattern.format(summary["median"] * scale) + " [" +
            pattern.format(summary["min"] * scale) + ".." +
            pattern.format(summary["max"] * scale) + "]")


def padded(text, width):
    return text + " " if len(text) >= width else text.ljust(width)


def describe_ours(document):
    plugin = document.get("plugin", {})
    return (f"ours = algenta-host bench, {plugin.get('name', '?')} (sha256 "
            f"{plugin.get('sha256', '?')[:12]}...), precision {document.get('precision', '?')}")


def describe_peer(document):
    peer = document.get("peer", {})
    return (f"peer = {peer.get('name', '?')}, torch {peer.get('torch_version', '?')}, "
            f"{peer.get('compile_mode', '?')}, CUDA graphs {peer.get('cuda_graphs', '?')}, "
            f"{peer.get('weight_dtype', '?')} weights")


def format_table(name, config_path, ours_documents, peer_documents, pairing, calibrated):
    runs = {side: max((r["figures"]["ttft_s"][side]["runs"] for r in pairing["rows"]), default=0)
            for side in ("ours", "peer")}
    lines = [f"{name} ({config_path}): same shapes and init scale, independent random weights; "
             f"batch 1; median [min..max] over {runs['peer']} peer and {runs['ours']} of our "
             "timed runs (every round)",
             "  " + describe_ours(ours_documents[0]),
             "  " + describe_peer(peer_documents[0]),
             "  " + calibrated["text"]]
    widths = (8, 7, 15, 30, 30, 10)
    header = ("L", "G", "figure", "peer", "ours", "ours/peer")
    lines.append("".join(padded(h, w) for h, w in zip(header, widths)).rstrip())
    for row in pairing["rows"]:
        for figure, label, scale, pattern in COMPARED:
            f = row["figures"][figure]
            ratio = f["ours_over_peer"]
            cells = (str(row["prompt_tokens"]), str(row["generated_tokens"]), label,
                     ranged(f["peer"], scale, pattern), ranged(f["ours"], scale, pattern),
                     "n/a" if ratio is None else f"{ratio:.3f}")
            lines.append("".join(padded(c, w) for c, w in zip(cells, widths)).rstrip())
    lines.append("ours/peer above 1: ours is faster in tok/s, slower in TTFT")
    for side in ("only_ours", "only_peer"):
        if pairing[side]:
            cells = ", ".join(f"L={k[0]} G={k[1]} C={k[2]}" for k in pairing[side])
            lines.append(f"measured by {side[5:]} side only (not compared): {cells}")
    return "\n".join(lines)
