"""A tiny causal language model built from a config, for tests and benchmarks that cannot
download weights: a byte-level BPE tokenizer trained on the given texts (so every string
encodes), a ChatML-style chat template, and a 2-layer Llama with random weights, saved as an
ordinary Hugging Face model folder that `from_pretrained`, `webtraj train` and
`webtraj llm serve-local` load like any real base model."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

BOS, EOS, PAD = "<|bos|>", "<|im_end|>", "<|pad|>"
IM_START = "<|im_start|>"
CHAT_TEMPLATE = (
    "{% for m in messages %}" + IM_START + "{{ m['role'] }}\n{{ m['content'] }}" + EOS
    + "\n{% endfor %}{% if add_generation_prompt %}" + IM_START + "assistant\n{% endif %}")


def chat_texts(records: Iterable[dict]) -> list[str]:
    """Every message text of chat records, the tokenizer's training corpus."""
    return [m["content"] for r in records for m in r["messages"]]


def build_tiny_model(texts: Iterable[str], out: Path, *, vocab_size: int = 4_000,
                     hidden_size: int = 64, layers: int = 2, heads: int = 4,
                     max_positions: int = 8_192, seed: int = 0,
                     intermediate_size: int | None = None, kv_heads: int | None = None,
                     merge_lines: bool = True, dtype: str = "float32",
                     device: str = "cpu") -> Path:
    """Train the tokenizer on `texts`, build the model and save both under `out`.
    The defaults make a tiny test model; benchmarks build larger ones (`merge_lines=False`
    gives an ordinary byte-level BPE, words apart, for realistic sequence lengths;
    `device="cuda"`, `dtype="bfloat16"` build the weights on the GPU)."""
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    # Words are not split apart: merges may span a whole tree line, so the repetitive page
    # text of the records takes few tokens (a short sequence keeps CPU training quick).
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split("\n", behavior="merged_with_previous"),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=not merge_lines)])
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size, special_tokens=[PAD, BOS, EOS, IM_START],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tok.train_from_iterator(list(texts), trainer=trainer)
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, bos_token=BOS, eos_token=EOS,
                                   pad_token=PAD, additional_special_tokens=[IM_START],
                                   model_max_length=max_positions)
    fast.chat_template = CHAT_TEMPLATE
    torch.manual_seed(seed)
    config = LlamaConfig(
        vocab_size=len(fast), hidden_size=hidden_size,
        intermediate_size=intermediate_size or 2 * hidden_size, num_hidden_layers=layers,
        num_attention_heads=heads, num_key_value_heads=kv_heads or heads,
        max_position_embeddings=max_positions, bos_token_id=fast.bos_token_id,
        eos_token_id=fast.eos_token_id, pad_token_id=fast.pad_token_id,
        tie_word_embeddings=False)
    with torch.device(device):
        model = LlamaForCausalLM(config).to(getattr(torch, dtype))
    model.generation_config.eos_token_id = fast.eos_token_id
    model.generation_config.pad_token_id = fast.pad_token_id
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)
    fast.save_pretrained(out)
    return out
