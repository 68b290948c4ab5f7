"""The runs bench_peers makes and the command line of each: the order that
alternates the two sides, our `algenta-host bench` and the peer, and what to
tell the user when our bench refuses a build that has no verify record.
"""
import re
import shlex

OURS, PEER = "ours", "peer"
# What llama.cpp would need here; reported, never attempted.
LLAMA_CPP_NOT_RUN = ("llama.cpp: not run: no llama.cpp build found; bench_peers does not drive "
                     "llama-bench (it needs llama.cpp built from source on the GPU machine and "
                     "an F16 GGUF of the same shape, which nothing here makes)")


def schedule(rounds):
    """[(round, side)]: odd rounds run ours first, even rounds the peer
    first, so clock and thermal drift within a round hits both sides."""
    if rounds < 1:
        raise ValueError(f"rounds {rounds}: expected at least 1")
    order = []
    for number in range(1, rounds + 1):
        first, second = (OURS, PEER) if number % 2 == 1 else (PEER, OURS)
        order += [(number, first), (number, second)]
    return order


def host_prefix(host, global_options):
    """algenta-host and its options that come before the subcommand
    (--state-file, --plugins-root, --keyring), as a list."""
    command = [host]
    for flag, value in global_options:
        if value:
            command += [flag, value]
    return command


def ours_command(prefix, config, settings, json_file, plugin=None, precision=None,
                 allow_oracle=False):
    command = prefix + ["bench", "--synthetic-weights", str(settings["seed"]), "--config", config,
                        "--shapes", settings["shapes"], "--gen", settings["gen"],
                        "--runs", str(settings["runs"]), "--warmup", str(settings["warmup"]),
                        "--json", json_file]
    if plugin:
        command += ["--plugin", plugin]
    if precision:
        command += ["--precision", precision]
    if allow_oracle:
        command += ["--allow-oracle"]
    return command


def peer_command(peer, config, settings, json_file, extra=""):
    return shlex.split(peer) + ["--config", config, "--seed", str(settings["seed"]),
                                "--shapes", settings["shapes"], "--gen", settings["gen"],
                                "--runs", str(settings["runs"]),
                                "--warmup", str(settings["warmup"]),
                                "--json", json_file] + shlex.split(extra)


VERIFY_REFUSAL = re.compile(r"refused: (\S+) \(sha256 [0-9a-f]+\) (has no verify record|failed "
                            r"verify)")


def verify_advice(bench_output, prefix, precision):
    """When our bench refused for want of a passing verify record: the lines
    that say how to make one (as tests/gpu/bench_quick.sh does: verify on the
    tiny qwen3 oracle fixture clears the plugin's build for every model).
    None when the refusal was about something else."""
    found = VERIFY_REFUSAL.search(bench_output)
    if not found:
        return None
    host = " ".join(shlex.quote(part) for part in prefix)
    return [
        f"our bench times only builds that passed every verify gate; {found.group(1)} "
        f"{found.group(2)} under precision {precision}. Make the record (a record for the "
        "plugin's sha256 clears it for every model), then run bench_peers again:",
        f"  {host} prepare tests/fixtures/oracle/qwen3 --out WORK/qwen3 --dtype bf16",
        "  python3 tests/tools/make_transformers_reference.py --model tests/fixtures/oracle/"
        "qwen3 --out WORK/ref.json",
        f"  {host} verify --model WORK/qwen3 --plugin {found.group(1)} --precision {precision} "
        "--lengths 256 --tokens 32 --transformers-reference WORK/ref.json",
        "(WORK: any scratch directory; give bench_peers the same --state-file, if any)",
    ]
