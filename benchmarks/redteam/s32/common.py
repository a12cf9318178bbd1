"""Shared set-up of the session 32 red team scripts (the CPU interpreter): a session, a kernel's listed configs, a class."""
import sys, re, time
sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[3]))
import torch
from pytest_kernelopt.backends import prepare, select_backend
prepare("auto")
backend = select_backend("auto")
from pytest_kernelopt.config import Settings
from pytest_kernelopt.gates.cascade import EvaluationSession, static_gate_result
from pytest_kernelopt.problems import problem_from_objects
from pytest_kernelopt.candidate import Candidate
from pytest_kernelopt.gates import reorder, provenance
from pytest_kernelopt import launch_space as ls

def make_session(module, inputs, name, seeds=2, base_seed=5):
    return EvaluationSession(problem_from_objects(module, inputs, name=name), Settings(seeds=seeds, base_seed=base_seed), backend)

def describe(session, show_src=False):
    for graph, name in session.captured.triton_kernels:
        k = graph.kernels[name]; tr = ls.trace_of(graph, name)
        print("==", name, ls.kind_of(k), "hints", k.size_hints, "trace", dict(tr.config), tr.num_warps, tr.num_stages)
        print("   masks:", re.findall(r"^[ \t]*\w*mask = .*$", k.source, re.M)[:6])
        print("   numels:", re.findall(r"^[ \t]*\w*numel = .*$", k.source, re.M))
        L = ls.inductor_configs(k)
        for c in L:
            print("   ", c, "valid" if ls.valid(k, tr, c) else "INVALID", "wb" if ls.within_bounds(k, tr, c) else "OOB-refused", "chain" if ls.longer_chains(tr, c) else "")
        if show_src: print(k.source)

def classify(session, cand):
    st = static_gate_result(cand, session.captured, None, aot=False)
    return provenance.classify([st]), st.numbers.get("reorder_of_inductor"), st.numbers.get("longer_chain")
