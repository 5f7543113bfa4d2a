#!/usr/bin/env python3
"""Writes the seed corpus fuzz/corpus/<target>/ from the unit tests' inputs: string
literals of the tests of each parser, the scenario, policy and config files, and the
recorded MADs. Run from the repository root; the output is committed. Seeds named by hand
(regression inputs, e.g. scenario/kind-that-is-an-object) are kept."""
import glob, hashlib, json, os, re, yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "fuzz", "corpus")


def literals(path):
    """C++ string literals of a file: "..." (C escapes) and R"(...)" (adjacent ones joined)."""
    src = open(os.path.join(ROOT, path), encoding="utf-8").read()
    out = []
    token = re.compile(r'R"\((.*?)\)"|"((?:[^"\\\n]|\\.)*)"', re.S)
    pos, current, last_end = 0, None, -1
    for m in token.finditer(src):
        if m.group(1) is not None:
            value = m.group(1).encode()
        else:
            value = m.group(2).encode().decode("unicode_escape").encode("latin-1", "replace")
        if current is not None and src[last_end:m.start()].strip() == "":
            current += value
        else:
            if current is not None:
                out.append(current)
            current = value
        last_end = m.end()
    if current is not None:
        out.append(current)
    return [v for v in out if v and not v.startswith(b"#include")]


def files(pattern):
    return [open(p, "rb").read() for p in sorted(glob.glob(os.path.join(ROOT, pattern), recursive=True))]


def write(target, seeds, prefix=b""):
    d = os.path.join(OUT, target)
    os.makedirs(d, exist_ok=True)
    # Only what this script wrote (named by hash): regression seeds named by hand stay.
    for name in os.listdir(d):
        if re.fullmatch(r"[0-9a-f]{16}", name):
            os.remove(os.path.join(d, name))
    seen = set()
    for s in seeds:
        data = prefix + s
        if len(data) > 64 * 1024 or data in seen:
            continue
        seen.add(data)
        with open(os.path.join(d, hashlib.sha1(data).hexdigest()[:16]), "wb") as f:
            f.write(data)
    print(f"{target}: {len(seen)} seeds")


def podgroups():
    out = []
    for text in files("tests/**/*.yaml") + files("deploy/**/*.yaml"):
        try:
            docs = list(yaml.safe_load_all(text))
        except yaml.YAMLError:
            continue
        stack = list(docs)
        while stack:
            x = stack.pop()
            if isinstance(x, dict):
                if x.get("kind") == "PodGroup":
                    out.append(json.dumps(x, default=str).encode())
                stack.extend(x.values())
            elif isinstance(x, list):
                stack.extend(x)
    return out


def yaml_as_json_list(text):
    """A YAML file's documents as one JSON List, the other form load_objects_text reads."""
    items = [d for d in yaml.safe_load_all(text) if d]
    return json.dumps({"apiVersion": "v1", "kind": "List", "items": items}, default=str).encode()


write("quantity", literals("tests/kube/quantity_test.cc"))
write("selector", literals("tests/kube/selector_test.cc"))
write("rfc3339", literals("tests/kube/time_test.cc"))
write("duration", literals("tests/kube/duration_test.cc") + [b"5m", b"90s", b"1h30m", b"250ms", b"2m"])
write("load_annotation", literals("tests/kube/load_annotation_test.cc") + literals("tests/descheduler/load_test.cc"))
write("podgroup", podgroups() + literals("tests/kube/podgroup_test.cc"))
# list_decoder: one byte for where the watch body splits, then the body.
write("list_decoder", [bytes([n]) + s for n, s in enumerate(literals("tests/kube-client/encoding_test.cc"))])
FULL_KUBECONFIG = b"""apiVersion: v1
kind: Config
current-context: dev
clusters:
- name: c1
  cluster:
    server: https://10.1.2.3:6443
    certificate-authority-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJzekNDQVZtZ0F3SUJBZ0lVUT09Ci0tLS0tRU5EIENFUlRJRklDQVRFLS0tLS0K
    insecure-skip-tls-verify: false
contexts:
- name: dev
  context: {cluster: c1, user: u1, namespace: ml}
users:
- name: u1
  user:
    token: abc123
"""
write("kubeconfig", [FULL_KUBECONFIG] + literals("tests/kube-client/config_test.cc"))
write("scenario", files("tests/scheduler/scenarios/*.yaml") + files("tests/scheduler-run/scenarios/*.yaml") +
      literals("tests/kube/scenario_test.cc"))
write("objects", files("tests/scheduler/scenarios/*.yaml") + files("tests/scheduler-run/scenarios/*.yaml") +
      files("tests/descheduler/testdata/*.yaml"))
# object_text: each Pod and Node of the scenarios as the API would send it, and the tests' texts.
scenario_objects = []
for text in files("tests/scheduler/scenarios/*.yaml") + files("tests/scheduler-run/scenarios/*.yaml"):
    scenario_objects += [json.dumps(d, default=str).encode() for d in yaml.safe_load_all(text)
                         if isinstance(d, dict) and d.get("kind") in ("Pod", "Node")]
write("object_text", scenario_objects + [s for t in ("pod_fields_test.cc", "node_fields_test.cc")
                                         for s in literals("tests/scheduler/" + t) if s.startswith(b"{")])
global_scenarios = files("tests/global/scenarios/*.yaml")
write("global_objects", global_scenarios + [yaml_as_json_list(t) for t in global_scenarios])
write("scheduler_config", files("tests/scheduler/scenarios/*.conf") + files("deploy/scheduler/configmap.yaml") +
      literals("tests/scheduler/config_test.cc"))
write("descheduler_policy", files("tests/descheduler/testdata/*.yaml") +
      files("deploy/descheduler/common/policy-configmap.yaml") + literals("tests/descheduler/policy_test.cc"))
write("load_file", [s for t in ("load_test.cc", "usage_test.cc") for s in literals("tests/descheduler/" + t)
                    if s.lstrip().startswith(b"{")])
# prometheus: one byte for the join label (odd: node, even: instance), then the body.
write("prometheus", [bytes([1]) + s for s in literals("tests/descheduler/load_test.cc")] +
      [bytes([0]) + s for s in literals("tests/descheduler/load_test.cc") if b"instance" in s])
# ib_mad: one byte for the decoder (see fuzz/ib_mad_fuzz.cc), then the recorded reply.
decoder = {"port_info": 3, "node_info": 1, "node_description": 2, "sm_info": 4, "records": 5,
           "port_counters_ext": 7, "port_counters": 6}
mads = []
for line in open(os.path.join(ROOT, "tests/ib/recorded/f33_h0005.txt")):
    if line.startswith("#") or not line.strip():
        continue
    query, hexdata = line.split()
    mad = bytes.fromhex(hexdata)
    mads.append(bytes([0]) + mad)
    for name, n in sorted(decoder.items(), key=lambda kv: -len(kv[0])):
        if query.endswith(name):
            mads.append(bytes([n]) + mad)
            break
write("ib_mad", mads)
