"""scripts/deploy (the Kubernetes example, never run in CI) against the
sources it depends on: every YAML file parses, every metric name it names is
one serve exports, every serve flag it passes exists, its probe paths are
serve routes, and the grace period outlasts the drain. A renamed metric,
flag or route breaks this test instead of the deployment."""
import glob
import os
import re

import pytest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
DEPLOY = os.path.join(ROOT, "scripts", "deploy")
YAML_FILES = sorted(glob.glob(os.path.join(DEPLOY, "*.yaml")))
# The gauges the endpoint picker reads (inferencepool-values.yaml).
PICKER_METRICS = {"algenta_requests_waiting", "algenta_requests_running",
                  "algenta_kv_cache_usage_ratio"}


def read(*parts):
    with open(os.path.join(ROOT, *parts)) as f:
        return f.read()


def deploy_texts():
    return {os.path.basename(p): read(p) for p in glob.glob(os.path.join(DEPLOY, "*"))}


def exported_metrics():
    """The metric families host/serve/metrics.cpp registers."""
    return set(re.findall(r'\.Name\("([a-z_:][a-z0-9_:]*)"\)', read("host", "serve", "metrics.cpp")))


def documents():
    yaml = pytest.importorskip("yaml")
    docs = {}
    for path in YAML_FILES:
        with open(path) as f:
            docs[os.path.basename(path)] = [d for d in yaml.safe_load_all(f) if d is not None]
    return docs


def the_deployment():
    for doc in documents()["deployment.yaml"]:
        if doc.get("kind") == "Deployment":
            return doc
    raise AssertionError("deployment.yaml holds no Deployment")


def test_every_yaml_file_parses_into_objects():
    assert YAML_FILES, "scripts/deploy holds no YAML file"
    for name, docs in documents().items():
        assert docs and all(isinstance(d, dict) for d in docs), name


def test_every_metric_named_is_one_serve_exports():
    exported = exported_metrics()
    assert PICKER_METRICS <= exported, "metrics.cpp no longer registers the picker's gauges"
    named = set()
    for name, text in deploy_texts().items():
        for metric in set(re.findall(r"\balgenta_[a-z0-9_]+", text)):
            family = re.sub(r"_(bucket|sum|count)$", "", metric)
            assert metric in exported or family in exported, f"{name} names {metric}"
            named.add(metric)
    assert PICKER_METRICS <= named, "the endpoint picker no longer reads serve's gauges"


def test_the_picker_maps_queue_depth_and_kv_usage_to_serve_gauges():
    values = documents()["inferencepool-values.yaml"][0]
    config_name = values["inferenceExtension"]["pluginsConfigFile"]
    yaml = pytest.importorskip("yaml")
    config = yaml.safe_load(values["inferenceExtension"]["pluginsCustomConfig"][config_name])
    extractor = next(p for p in config["plugins"] if p["type"] == "core-metrics-extractor")
    engines = {e["name"]: e for e in extractor["parameters"]["engineConfigs"]}
    ours = engines[extractor["parameters"]["defaultEngine"]]
    assert ours["queuedRequestsSpec"] == "algenta_requests_waiting"
    assert ours["kvUsageSpec"] == "algenta_kv_cache_usage_ratio"
    pool_labels = values["inferencePool"]["modelServers"]["matchLabels"]
    pod_labels = the_deployment()["spec"]["template"]["metadata"]["labels"]
    assert pool_labels.items() <= pod_labels.items()


def test_serve_flags_probe_routes_and_grace_period_fit_the_sources():
    deployment = the_deployment()
    pod = deployment["spec"]["template"]["spec"]
    container = pod["containers"][0]
    args = container["args"]
    assert args[0] == "serve"
    declared = set()
    for source in (("host", "main.cpp"), ("host", "cli", "serve_options.cpp"),
                   ("host", "http", "http_options.cpp")):
        declared |= set(re.findall(r"--[a-z][a-z0-9-]*", read(*source)))
    for flag in (a for a in args if a.startswith("--")):
        assert flag in declared, f"serve has no flag {flag}"
    assert "--api-key-file" in args and "--metrics-without-key" in args
    routes = set(re.findall(r'\{"(/[a-z/]*)", Route::', read("host", "openai", "routes.cpp")))
    for probe in ("startupProbe", "livenessProbe", "readinessProbe"):
        assert container[probe]["httpGet"]["path"] in routes, probe
    assert container["readinessProbe"]["httpGet"]["path"] == "/ready"
    drain_s = int(args[args.index("--drain-timeout-ms") + 1]) / 1000
    pre_stop_s = container["lifecycle"]["preStop"]["sleep"]["seconds"]
    assert pod["terminationGracePeriodSeconds"] > pre_stop_s + drain_s
    assert container["resources"]["limits"]["nvidia.com/gpu"] == 1
