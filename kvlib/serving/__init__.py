"""Serving at real scale: continuous-time simulation, the batch-time model,
workloads and traces, KV-cache sizing, and the real-trace experiments.

:mod:`~kvlib.serving.realtime`, :mod:`~kvlib.serving.batchtime`,
:mod:`~kvlib.serving.workloads`, :mod:`~kvlib.serving.hardware`,
:mod:`~kvlib.serving.experiments`.
"""

from kvlib.serving.batchtime import BatchTimeModel, default_model
from kvlib.serving.hardware import kv_capacity_tokens
from kvlib.serving.realtime import RealtimeResult, simulate_realtime
from kvlib.serving.workloads import Workload, load_arxiv, load_splitwise

__all__ = ["BatchTimeModel", "default_model", "kv_capacity_tokens", "RealtimeResult", "simulate_realtime",
           "Workload", "load_arxiv", "load_splitwise"]
