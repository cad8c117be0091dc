"""The training loss's LM head: which path computes the answer tokens' log-probabilities.

- `plain`: the model's own forward with `logits_to_keep` set to the positions whose next token
  carries loss (the answer tokens; a padded micro-batch keeps the union over its rows), then
  PyTorch's cross-entropy in fp32. Logits of the prompt are never built.
- `fused`: TRL's chunked LM head (`trl.kernels.ChunkedLogProbFunction`, added to the model by
  SFTTrainer): the logits are never materialized, tiles of the vocabulary are folded into
  log-sum-exp statistics (a Triton kernel on CUDA, torch ops elsewhere).

Both compute the same loss (tests/train/test_token_batching.py checks loss and gradients in
fp32). `auto` measures both on this device, on the model's own LM head weight and a batch of
the micro-batch's size, and keeps the faster, or the fused one where the plain head's logits
would take a large share of the GPU's memory. Entropy and top-1 accuracy per token are
computed only when asked for (`token_statistics`)."""

from __future__ import annotations

import inspect
import time
from dataclasses import dataclass
from typing import Any

import torch

from webtraj.train.config import LMHeadReport

# TRL 1.16's vocabulary tile width for its fused head (trl.trainer.utils).
FUSED_CHUNK = 32_768
# Tokens the probe scores: a micro-batch's worth, bounded so the probe stays short.
PROBE_TOKENS_GPU = 4_096
PROBE_TOKENS_CPU = 512
PROBE_REPEATS = 3
PATHS = ("plain", "fused")
# The plain head's extra memory over the fused one that makes auto pick the fused head even
# when slower: this share of the GPU's memory would come out of the token budget.
MEMORY_SHARE_LIMIT = 0.05


@dataclass
class TokenLosses:
    """Per-token negative log-likelihood of a micro-batch, shape (rows, length - 1), zero where
    the next token carries no loss; entropy and top-1 hits only when asked for."""

    nll: torch.Tensor
    mask: torch.Tensor
    entropy: torch.Tensor | None = None
    top1: torch.Tensor | None = None


def _plain_head(hidden: torch.Tensor, weight: torch.Tensor, targets: torch.Tensor
                ) -> torch.Tensor:
    logits = torch.nn.functional.linear(hidden, weight)
    return torch.nn.functional.cross_entropy(logits.float(), targets, reduction="sum")


def _fused_head(hidden: torch.Tensor, weight: torch.Tensor, targets: torch.Tensor
                ) -> torch.Tensor:
    from trl.kernels import ChunkedLogProbFunction

    log_probs = ChunkedLogProbFunction.apply(hidden, weight, None, targets, 1.0, FUSED_CHUNK,
                                             None, 1.0, ("log_probs",))[0]
    return -log_probs.sum()


def _time_head(head: Any, hidden: torch.Tensor, weight: torch.Tensor, targets: torch.Tensor
               ) -> tuple[float, float | None]:
    """(best seconds of forward + backward, peak extra GPU memory in MiB or None on CPU)."""
    cuda = hidden.device.type == "cuda"
    best = float("inf")
    peak = None
    for repeat in range(PROBE_REPEATS + 1):  # the first is a warm-up
        hidden.grad = weight.grad = None
        if cuda:
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
            before = torch.cuda.memory_allocated()
        t0 = time.perf_counter()
        head(hidden, weight, targets).backward()
        if cuda:
            torch.cuda.synchronize()
            peak = (torch.cuda.max_memory_allocated() - before) / 2**20
        if repeat:
            best = min(best, time.perf_counter() - t0)
    return best, peak


def measure(weight: torch.Tensor, train_weight: bool, tokens: int, device: torch.device,
            dtype: torch.dtype) -> LMHeadReport:
    """Both heads on `tokens` random hidden states against this LM head weight (on the
    training device, in the compute dtype), forward and backward; the choice and the
    figures."""
    gen = torch.Generator(device=device).manual_seed(0)
    hidden = torch.randn(tokens, weight.shape[1], device=device, dtype=dtype,
                         generator=gen).requires_grad_(True)
    w = weight.detach().to(device=device, dtype=dtype).requires_grad_(train_weight)
    targets = torch.randint(0, weight.shape[0], (tokens,), device=device, generator=gen)
    plain_s, plain_mb = _time_head(_plain_head, hidden, w, targets)
    fused_s, fused_mb = _time_head(_fused_head, hidden, w, targets)
    path = "fused" if fused_s < plain_s else "plain"
    why = "faster"
    if device.type == "cuda" and plain_mb is not None and fused_mb is not None:
        total = torch.cuda.get_device_properties(device).total_memory / 2**20
        if plain_mb - fused_mb > MEMORY_SHARE_LIMIT * total:
            path, why = "fused", "the plain head's logits take too much memory"
    del hidden, w
    return LMHeadReport(path=path, chosen_by=f"measured on {device.type}: {why}",
                        probe_tokens=tokens, plain_ms=1000 * plain_s, fused_ms=1000 * fused_s,
                        plain_peak_mb=plain_mb, fused_peak_mb=fused_mb)


def choose(setting: str, model: Any, *, train_weight: bool, budget: int | None,
           device: torch.device, dtype: torch.dtype | None) -> LMHeadReport:
    """The head the training step uses: the setting, or `auto`'s measurement on `device`
    in `dtype` (None: the weight's own)."""
    if setting != "auto":
        return LMHeadReport(path=setting, chosen_by="option")
    weight = model.get_output_embeddings().weight
    cap = PROBE_TOKENS_GPU if device.type == "cuda" else PROBE_TOKENS_CPU
    with torch.random.fork_rng(devices=[device] if device.type == "cuda" else []):
        report = measure(weight, train_weight, min(budget or cap, cap), device,
                         dtype or weight.dtype)
    return agreed(report)


def agreed(report: LMHeadReport) -> LMHeadReport:
    """Under data parallelism every process takes rank 0's choice (each measured its own), so
    all of them run the same head."""
    import torch.distributed as dist

    if report.chosen_by == "option" or not (dist.is_available() and dist.is_initialized()):
        return report
    backend_cuda = dist.get_backend() == "nccl"
    flag = torch.tensor([PATHS.index(report.path)],
                        device="cuda" if backend_cuda else "cpu")
    dist.broadcast(flag, src=0)
    path = PATHS[int(flag)]
    if path == report.path:
        return report
    return report.model_copy(update={"path": path, "chosen_by": "rank 0's measurement"})


def keeps_logits(model: Any) -> bool:
    """Whether the model's forward takes `logits_to_keep` (transformers' causal LMs do)."""
    forward = getattr(type(model), "forward", None)
    try:
        return "logits_to_keep" in inspect.signature(forward).parameters
    except (TypeError, ValueError):
        return False


def token_losses(model: Any, inputs: dict[str, Any], path: str, statistics: bool,
                 keep_logits: bool = True) -> TokenLosses:
    """Score a collated micro-batch (TRL's collator: labels -100 where no loss) on `path`."""
    labels = inputs["labels"]
    shifted = labels[:, 1:]
    mask = shifted != -100
    if path == "fused":
        outputs = model(**inputs, use_cache=False, fused_lm_head=True)
        return TokenLosses(nll=-outputs.log_probs, mask=mask, entropy=outputs.entropy,
                           top1=outputs.is_top1)
    rest = {k: v for k, v in inputs.items() if k != "labels"}
    keep = mask.any(0).nonzero().flatten()
    if keep_logits:
        logits = model(**rest, use_cache=False, logits_to_keep=keep).logits
    else:
        logits = model(**rest, use_cache=False).logits[:, keep]
    targets = shifted[:, keep]
    nll_kept = torch.nn.functional.cross_entropy(
        logits.float().flatten(0, 1), targets.flatten(), ignore_index=-100,
        reduction="none").view(targets.shape)
    nll = nll_kept.new_zeros(shifted.shape).index_copy(1, keep, nll_kept)
    if not statistics:
        return TokenLosses(nll=nll, mask=mask)
    with torch.no_grad():
        kept_mask = mask[:, keep]
        logp = torch.log_softmax(logits.detach().float(), -1)
        entropy = -(logp.exp() * logp).sum(-1) * kept_mask
        top1 = (logits.detach().argmax(-1) == targets) & kept_mask
        full_entropy = entropy.new_zeros(shifted.shape).index_copy(1, keep, entropy)
        full_top1 = torch.zeros_like(mask).index_copy(1, keep, top1)
    return TokenLosses(nll=nll, mask=mask, entropy=full_entropy, top1=full_top1)


def record_losses(scored: TokenLosses, batch: dict[str, Any]) -> torch.Tensor:
    """Mean answer-token loss of each record of a micro-batch (a packed row's records start
    where its positions restart; a padded batch has one record per row); NaN for a record
    without answer tokens (a filler)."""
    if "attention_mask" in batch or "position_ids" not in batch:
        return scored.nll.sum(1) / scored.mask.sum(1)
    starts = batch["position_ids"][0] == 0
    record = (starts.cumsum(0) - 1)[1:]  # the record of each shifted label
    count = int(starts.sum())
    total = scored.nll.new_zeros(count).index_add(0, record, scored.nll[0])
    tokens = scored.nll.new_zeros(count).index_add(0, record, scored.mask[0].to(total.dtype))
    return total / tokens  # NaN for a record without answer tokens (a filler)
