"""Training on any device: the device and precision settings, LoRA and its merge, the
per-rule weights, a deterministic loss curve, device-neutral checkpoints."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from stebkit.errors import InvalidSetting
from stebkit.train import TrainConfig, train_style_encoder
from stebkit.train.content import TripletSampler
from stebkit.train.device import autocast_dtype, training_device
from stebkit.train.loop import checkpoint_dir

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def _passages() -> pd.DataFrame:
    """Twelve short texts by three authors, two works each (no data files needed)."""
    rows = []
    for a, author in enumerate(["Ann", "Bob", "Cy"]):
        for w in range(2):
            for i in range(2):
                rows.append({"text": f"{author} wrote line {i} of work {w}; it is plain "
                                     f"prose number {a * 4 + w * 2 + i}.",
                             "author": author, "work": f"{author}-{w}"})
    return pd.DataFrame(rows)


def _units() -> pd.DataFrame:
    """Three contents, each plain and in two rule-made styles."""
    rows = []
    for c, (text, short) in enumerate([
            ("It is late and we do not go.", "It's late and we don't go."),
            ("I will not wait for you today.", "I won't wait for you today."),
            ("She is here, and it is great.", "She's here, and it's great.")]):
        rows += [(text, f"rule:{c}", "plain"), (short, f"rule:{c}", "contractions"),
                 (text.upper(), f"rule:{c}", "capitals")]
    frame = pd.DataFrame(rows, columns=["text", "content", "style"])
    frame["source"] = "rules"
    return frame


def _train(out, **kw):
    until = kw.pop("until_step", None)
    config = TrainConfig(**{**dict(steps=4, batch_size=2, max_seq_length=24,
                                   hard_negatives=1, hard_negative_pool=2, content_pairs=2,
                                   content_max_seq_length=24, checkpoint_every=2, seed=5,
                                   lora_rank=4), **kw})
    return train_style_encoder(config, passages=_passages(), content_units=_units(),
                               output_dir=out, until_step=until, save=False,
                               show_progress=False)


# -- settings ------------------------------------------------------------------------------


def test_device_and_precision_are_declared_settings():
    assert TrainConfig().device == "auto" and TrainConfig().precision == "auto"
    assert TrainConfig(device="cuda:1").device == "cuda:1"
    with pytest.raises(InvalidSetting, match="device must be auto, cpu, cuda"):
        TrainConfig(device="gpu")
    with pytest.raises(InvalidSetting, match="precision must be one of"):
        TrainConfig(precision="float16")
    with pytest.raises(InvalidSetting, match="unknown rule 'contraction'"):
        TrainConfig(rule_weights=(("contraction", 2.0),))
    with pytest.raises(InvalidSetting, match="rule_weights must be a finite number > 0"):
        TrainConfig(rule_weights=(("contractions", 0),))


def test_a_device_this_machine_lacks_is_refused_with_the_way_out():
    import torch

    with pytest.raises(InvalidSetting, match="'cuda:999' is not available here.*--device cpu"):
        training_device("cuda:999")
    assert training_device("auto").type == ("cuda" if torch.cuda.is_available() else "cpu")
    assert training_device("cpu").type == "cpu"


def test_precision_policy():
    import torch

    cpu, cuda = torch.device("cpu"), torch.device("cuda")
    assert autocast_dtype("auto", cpu) is None  # float32 on the CPU unless asked
    assert autocast_dtype("auto", cuda) is torch.bfloat16
    assert autocast_dtype("float32", cuda) is None
    assert autocast_dtype("bfloat16", cpu) is torch.bfloat16


def test_the_command_line_passes_device_precision_and_rule_weights():
    from stebkit.cli import build_parser
    from stebkit.cli.train import checked_config

    parse = build_parser().parse_args
    config = checked_config(parse(["train", "--device", "cpu", "--precision", "bfloat16",
                                   "--rule-weights", "emoji=3", "--lora-rank", "8"]))
    assert (config.device, config.precision, config.rule_weights, config.lora_rank) == (
        "cpu", "bfloat16", (("emoji", 3.0),), 8)
    assert checked_config(parse(["train"])) == TrainConfig()  # the defaults are the recipe
    with pytest.raises(InvalidSetting, match="^--device must be"):
        checked_config(parse(["train", "--device", "tpu"]))
    with pytest.raises(InvalidSetting, match="^--rule-weights: unknown rule"):
        checked_config(parse(["train", "--rule-weights", "nope=2"]))


# -- per-rule weights ----------------------------------------------------------------------


def test_rule_weights_draw_a_style_as_often_as_its_weight():
    """Anchors: styles weigh plain 1, contractions 3, capitals 1, so 3/5 of the anchors
    are contractions; a plain anchor's negative is contractions 3 times in 4."""
    sampler = TripletSampler(_units(), batch_size=4000, seed=1,
                             style_weights={"contractions": 3.0})
    anchors, _, negatives = sampler.batch(0)
    styles = _units()["style"].to_numpy()
    share = np.mean(styles[anchors] == "contractions")
    assert abs(share - 3 / 5) < 0.03  # 4000 draws: 4 standard errors
    plain = styles[anchors] == "plain"
    assert abs(np.mean(styles[negatives[plain]] == "contractions") - 3 / 4) < 0.06
    uniform = TripletSampler(_units(), batch_size=4000, seed=1).batch(0)[0]
    assert abs(np.mean(styles[uniform] == "contractions") - 1 / 3) < 0.03


# -- LoRA ----------------------------------------------------------------------------------


def test_lora_merge_equals_the_wrapped_model_and_an_independent_sum():
    import torch
    from transformers import BertConfig, BertModel

    from stebkit.train.lora import adapter_tensors, add_lora, merged_state

    torch.manual_seed(0)
    config = BertConfig(hidden_size=16, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=32, vocab_size=50)
    base = BertModel(config).eval()
    plain = {k: v.clone() for k, v in base.state_dict().items()}
    wrapped = BertModel(config).eval()
    wrapped.load_state_dict(plain)
    names = add_lora(wrapped, rank=2, alpha=4.0, seed=3)
    ids = torch.tensor([[1, 5, 7, 9, 2]])
    with torch.no_grad():
        same = wrapped(input_ids=ids).last_hidden_state
        assert torch.equal(same, base(input_ids=ids).last_hidden_state)  # B starts at 0
        for name in names:
            wrapped.get_submodule(name).lora_b.normal_()
    tensors = adapter_tensors(wrapped)
    assert len(tensors) == 2 * len(names) == 24
    merged = BertModel(config).eval()
    merged.load_state_dict(merged_state(wrapped))
    with torch.no_grad():
        expect = wrapped(input_ids=ids).last_hidden_state
        np.testing.assert_allclose(merged(input_ids=ids).last_hidden_state, expect,
                                   rtol=0, atol=1e-5)
    # the merged weight is W + (alpha / r) B A, summed here by hand
    layer = names[0]
    mod = wrapped.get_submodule(layer)
    hand = plain[f"{layer}.weight"] + 2.0 * (mod.lora_b @ mod.lora_a).detach()
    np.testing.assert_allclose(merged.state_dict()[f"{layer}.weight"], hand, atol=1e-6)


# -- determinism and checkpoints -----------------------------------------------------------


@pytest.mark.slow
def test_same_seed_same_loss_curve_and_resume_continues_it_on_another_device_setting(
        tmp_path):
    import torch

    first = _train(tmp_path / "a")
    again = _train(tmp_path / "b")
    assert len(first.losses) == 4 and first.losses == again.losses
    assert _train(tmp_path / "c", seed=6).losses != first.losses
    half = _train(tmp_path / "d", until_step=2, device="auto")
    saved = torch.load(sorted(checkpoint_dir(tmp_path / "d").glob("*.pt"))[-1],
                       weights_only=True)
    assert {t.device.type for t in _tensors(saved)} == {"cpu"}  # written device-neutral
    rest = _train(tmp_path / "d", device="cpu")  # the device is not part of the recipe
    assert half.losses == first.losses[:2]
    assert rest.resumed_from == 2 and rest.losses == first.losses


def _tensors(obj):
    import torch

    if isinstance(obj, torch.Tensor):
        yield obj
    elif isinstance(obj, dict):
        for v in obj.values():
            yield from _tensors(v)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            yield from _tensors(v)


@pytest.mark.slow
def test_bfloat16_on_the_cpu_is_opt_in_and_changes_the_numbers(tmp_path):
    exact = _train(tmp_path / "f32", steps=2, precision="float32")
    auto = _train(tmp_path / "auto", steps=2)
    low = _train(tmp_path / "bf16", steps=2, precision="bfloat16")
    assert auto.losses == exact.losses  # auto is float32 on the CPU
    assert low.losses != exact.losses
    np.testing.assert_allclose(low.losses, exact.losses, rtol=0.05)
