"""Like-for-like GPU configurations: one kind of measurement per comparison.

Plain PyTorch operators are slower than Vidur's serving kernels at small batches (kernel-launch gaps), so a
comparison of an H100 whose non-attention operators come from Vidur's profile with an H200 whose operators come
from our PyTorch timings favours the H100 (at 64 tokens Vidur's H100 layer is faster than our PyTorch timing of
the H200's, while on PyTorch timings of both the H200 is the faster).  This module names the configurations of
:func:`kvlib.serving.measured.measured_model` by the *kind* of their non-attention times:

* ``vidur``: Vidur's profile of that GPU (``a100``, ``h100``);
* ``vidur-derived``: Vidur's H100 operators, each scaled by its H200/H100 ratio in our PyTorch timings of both
  GPUs (``h200``; :func:`kvlib.serving.measured.derived_layer_rows`): both terms of a ratio are timed by the
  same code, so the ratio is like for like, and the result is in Vidur's units;
* ``pytorch``: our PyTorch timing of the whole non-attention layer (``h100-pytorch``, ``h200-pytorch``; no A100
  was timed so).

``vidur`` and ``vidur-derived`` form one family (:data:`KINDS`); a comparison uses one family
(:func:`kvlib.serving.gpus.check_like_for_like`).  Embedding and all-reduce: H100's (Vidur) for every H100 and
H200 configuration.  Attention is not part of the kind: Vidur's profile on A100, our timings on H100 and H200
(no other exists).  :data:`LIKE_FOR_LIKE` embeds the fitted layers; :func:`kvlib.serving.measured.fit_like_for_like`
refits them (and ``like_for_like_literal`` writes the literal).  Data only: this module imports nothing of kvlib.
"""

from __future__ import annotations

__all__ = ["CONFIGS", "KINDS", "ATTENTION", "VIDUR_TO_KERNEL", "LIKE_FOR_LIKE"]

#: Each configuration :func:`kvlib.serving.measured.measured_model` knows: (the GPU whose attention it uses, the kind of its
#: non-attention times).  The plain GPU names compare like with like (kind family ``vidur``); the ``-pytorch``
#: configurations are the sensitivity of the other kind (no PyTorch timing exists for the A100).
CONFIGS: dict[str, tuple[str, str]] = {
    "a100": ("a100", "vidur"), "h100": ("h100", "vidur"), "h200": ("h200", "vidur-derived"),
    "h100-pytorch": ("h100", "pytorch"), "h200-pytorch": ("h200", "pytorch"),
}

#: The kinds of non-attention times, and the family each belongs to (a comparison uses one family).
KINDS: dict[str, str] = {"vidur": "vidur", "vidur-derived": "vidur", "pytorch": "pytorch"}

#: The attention models: ``measured`` (the surface through the measured decode grid, the default), ``line`` (the
#: straight-line or roofline fit of earlier versions), ``derived`` (batchtime.py's A100 assumption).
ATTENTION = ("measured", "line", "derived")


#: Vidur's per-layer operators and the PyTorch operator whose H200/H100 ratio scales each (``attn_rope`` and the
#: second layer norm have no timing of their own: the whole layer's ratio and the first layer norm's stand in).
VIDUR_TO_KERNEL = {"input_layernorm": "input_layernorm", "attn_pre_proj": "attn_pre_proj",
                   "attn_rope": "layer_without_attention", "attn_post_proj": "attn_post_proj",
                   "post_attention_layernorm": "input_layernorm", "mlp_up_proj": "mlp_up_proj",
                   "mlp_act": "mlp_act", "mlp_down_proj": "mlp_down_proj", "add": "add"}


#: Non-attention layers of the like-for-like configurations, fitted by
#: :func:`kvlib.serving.measured.fit_like_for_like` from ``../shared/data`` (``like_for_like_literal``); the other
#: configurations use :data:`kvlib.serving.measured.EMBEDDED`'s.
LIKE_FOR_LIKE: dict = {'h200': {'base': {'layer_c0': 0.21219626879945336,
                   'layer_c1': 0.000841821929094978,
                   'layer_c2': 0.0005020452115925901,
                   'layer_knee': 192,
                   'emb_e0': -0.0010881639020846683,
                   'emb_e1': 5.690541569155341e-05,
                   'allreduce_d0': 0.017114653079721005,
                   'allreduce_d1': 5.061210278444812e-09},
          'provenance': {'how': "Vidur's H100 non-attention operators, each scaled by its H200/H100 ratio in our "
                                'PyTorch timings of both GPUs',
                         'files': {'h100_llama2_70b_tp2_kernels.csv': '80fc0acaa238ede7e788b1d4a4d1e711b2f3dc2d0498b2b4b749e93b5a3b31d1',
                                   'h100_llama2_70b_mlp.csv': 'fb3581ade7c02caab8a0f7d1ca1ad06a7b0fbac3d9f32a9ed46ae55d95fd6bb3',
                                   'h200_llama2_70b_tp2_kernels.csv': '9e597c04746bcc139dcf949ab09ed47f420a67f71ecda64b4db5da63fd1f02df'},
                         'quality': {'r2': 0.99276, 'median_rel_err': 0.0418, 'max_rel_err': 0.3276, 'n_rows': 261},
                         'layer_ms_at_64_tokens': 0.266073,
                         'stand_ins': "embedding and all-reduce: H100's (Vidur)"}},
 'h100-pytorch': {'base': {'layer_c0': 0.48049531074756485,
                           'layer_c1': -0.0003143229757656007,
                           'layer_c2': 0.0018144563053103953,
                           'layer_knee': 192,
                           'emb_e0': -0.0010881639020846683,
                           'emb_e1': 5.690541569155341e-05,
                           'allreduce_d0': 0.017114653079721005,
                           'allreduce_d1': 5.061210278444812e-09},
                  'provenance': {'how': 'our PyTorch timing of the whole non-attention layer on one H100',
                                 'files': {'h100_llama2_70b_tp2_kernels.csv': '80fc0acaa238ede7e788b1d4a4d1e711b2f3dc2d0498b2b4b749e93b5a3b31d1'},
                                 'quality': {'r2': 0.99889,
                                             'median_rel_err': 0.049,
                                             'max_rel_err': 0.1978,
                                             'n_rows': 24},
                                 'layer_ms_at_64_tokens': 0.460379,
                                 'stand_ins': "embedding and all-reduce: H100's (Vidur)"}}}

