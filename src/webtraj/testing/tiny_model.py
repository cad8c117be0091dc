"""Tiny models built from a config, for tests and benchmarks that cannot download weights:
a byte-level BPE tokenizer trained on the given texts (so every string encodes), a
ChatML-style chat template and random weights, saved as ordinary Hugging Face model folders
that `from_pretrained`, `webtraj train` and `webtraj llm serve-local` load like real base
models.

- `build_tiny_model`: a 2-layer Llama (a text student);
- `build_tiny_vlm`: a LLaVA (a 1-layer CLIP vision tower, a projector and a 2-layer Llama)
  with its processor (the tokenizer, a CLIP image processor from its defaults at a small
  size, a template that writes `<image>` where a message has an image part): a
  vision-language student of the same shape as Qwen2.5-VL-class models for TRL and PEFT
  (`AutoProcessor`, `AutoModelForImageTextToText`, the vision tower beside the language
  model)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

BOS, EOS, PAD = "<|bos|>", "<|im_end|>", "<|pad|>"
IM_START = "<|im_start|>"
IMAGE = "<image>"
CHAT_TEMPLATE = (
    "{% for m in messages %}" + IM_START + "{{ m['role'] }}\n{{ m['content'] }}" + EOS
    + "\n{% endfor %}{% if add_generation_prompt %}" + IM_START + "assistant\n{% endif %}")
# The same turns; a content list writes its text parts and IMAGE for each image part.
VLM_CHAT_TEMPLATE = (
    "{% for m in messages %}" + IM_START + "{{ m['role'] }}\n"
    "{% if m['content'] is string %}{{ m['content'] }}{% else %}"
    "{% for p in m['content'] %}{% if p['type'] == 'image' %}" + IMAGE
    + "{% elif p['type'] == 'text' %}{{ p['text'] }}{% endif %}{% endfor %}{% endif %}" + EOS
    + "\n{% endfor %}{% if add_generation_prompt %}" + IM_START + "assistant\n{% endif %}")


def chat_texts(records: Iterable[dict]) -> list[str]:
    """Every message text of chat records (string contents and text parts), the
    tokenizer's training corpus."""
    out = []
    for r in records:
        for m in r["messages"]:
            content = m["content"]
            if isinstance(content, str):
                out.append(content)
            else:
                out += [p["text"] for p in content if p.get("type") == "text"]
    return out


def _tokenizer(texts: Iterable[str], vocab_size: int, max_positions: int, merge_lines: bool,
               extra_specials: Sequence[str] = ()) -> Any:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    # Words are not split apart: merges may span a whole tree line, so the repetitive page
    # text of the records takes few tokens (a short sequence keeps CPU training quick).
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split("\n", behavior="merged_with_previous"),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=not merge_lines)])
    tok.decoder = decoders.ByteLevel()
    specials = [PAD, BOS, EOS, IM_START, *extra_specials]
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size, special_tokens=specials,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tok.train_from_iterator(list(texts), trainer=trainer)
    return PreTrainedTokenizerFast(tokenizer_object=tok, bos_token=BOS, eos_token=EOS,
                                   pad_token=PAD, additional_special_tokens=specials[3:],
                                   model_max_length=max_positions)


def _llama_config(fast: Any, hidden_size: int, layers: int, heads: int, max_positions: int,
                  intermediate_size: int | None, kv_heads: int | None) -> Any:
    from transformers import LlamaConfig

    return LlamaConfig(
        vocab_size=len(fast), hidden_size=hidden_size,
        intermediate_size=intermediate_size or 2 * hidden_size, num_hidden_layers=layers,
        num_attention_heads=heads, num_key_value_heads=kv_heads or heads,
        max_position_embeddings=max_positions, bos_token_id=fast.bos_token_id,
        eos_token_id=fast.eos_token_id, pad_token_id=fast.pad_token_id,
        tie_word_embeddings=False)


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
    from transformers import LlamaForCausalLM

    fast = _tokenizer(texts, vocab_size, max_positions, merge_lines)
    fast.chat_template = CHAT_TEMPLATE
    torch.manual_seed(seed)
    config = _llama_config(fast, hidden_size, layers, heads, max_positions,
                           intermediate_size, kv_heads)
    with torch.device(device):
        model = LlamaForCausalLM(config).to(getattr(torch, dtype))
    return _save(model, fast, fast, out)


def _save(model: Any, fast: Any, saver: Any, out: Path) -> Path:
    """The model (ending generation at the turn's end) and its tokenizer or processor."""
    model.generation_config.eos_token_id = fast.eos_token_id
    model.generation_config.pad_token_id = fast.pad_token_id
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)
    saver.save_pretrained(out)
    return out


def build_tiny_vlm(texts: Iterable[str], out: Path, *, vocab_size: int = 4_000,
                   hidden_size: int = 64, layers: int = 2, heads: int = 4,
                   vision_hidden: int = 32, vision_layers: int = 1, image_side: int = 64,
                   patch: int = 8, max_positions: int = 8_192, seed: int = 0) -> Path:
    """The tiny vision-language model and its processor under `out`. Every image becomes
    `(image_side / patch)^2` tokens (64 by default): the CLIP image processor resizes it to
    image_side x image_side (no centre crop: a screenshot is squeezed, not cut)."""
    import torch
    from transformers import (
        CLIPVisionConfig,
        LlavaConfig,
        LlavaForConditionalGeneration,
        LlavaProcessor,
    )
    from transformers.models.clip.image_processing_pil_clip import CLIPImageProcessorPil

    fast = _tokenizer(texts, vocab_size, max_positions, True, extra_specials=(IMAGE,))
    fast.chat_template = VLM_CHAT_TEMPLATE
    side = {"height": image_side, "width": image_side}
    processor = LlavaProcessor(
        image_processor=CLIPImageProcessorPil(size=side, crop_size=side, do_center_crop=False),
        tokenizer=fast, patch_size=patch, vision_feature_select_strategy="default",
        chat_template=VLM_CHAT_TEMPLATE, image_token=IMAGE, num_additional_image_tokens=1)
    config = LlavaConfig(
        text_config=_llama_config(fast, hidden_size, layers, heads, max_positions, None, None),
        vision_config=CLIPVisionConfig(
            hidden_size=vision_hidden, intermediate_size=2 * vision_hidden,
            num_hidden_layers=vision_layers, num_attention_heads=2, image_size=image_side,
            patch_size=patch, projection_dim=vision_hidden),
        image_token_id=fast.convert_tokens_to_ids(IMAGE),
        vision_feature_select_strategy="default", vision_feature_layer=-1,
        tie_word_embeddings=False)
    torch.manual_seed(seed)
    return _save(LlavaForConditionalGeneration(config), fast, processor, out)
