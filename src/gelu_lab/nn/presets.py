"""Model and run sizes by name (torch-free, so the CLI can list them without importing torch).

Measured on 2 idle CPU cores: quick ~25 ms/step (109 k parameters), standard
~160 ms/step (0.82 M); on a busy machine expect several times that.
"""

PRESETS = {
    # a smoke-test size: seconds per run, for tests and trying the pipeline
    "tiny": dict(n_layer=1, n_embd=16, n_head=2, block_size=16, batch_size=8, steps=200, lr=3e-3, eval_interval=20),
    "quick": dict(n_layer=2, n_embd=64, n_head=4, block_size=64, batch_size=32, steps=1500, lr=1e-3, eval_interval=100),
    # the FFN experiment that decides (gelu_lab.nn.experiment): learns words, val < 1.8 nats/char
    "decide": dict(n_layer=4, n_embd=128, n_head=4, block_size=128, batch_size=16, steps=1000, lr=4e-3, eval_interval=100),
    "standard": dict(n_layer=4, n_embd=128, n_head=4, block_size=128, batch_size=32, steps=1800, lr=1e-3, eval_interval=100),
    # nanoGPT's Shakespeare-character size (config/train_shakespeare_char.py, without dropout): bench/ffn_gpu.py on a GPU
    "shakespeare": dict(n_layer=6, n_embd=384, n_head=6, block_size=256, batch_size=64, steps=5000, lr=1e-3, eval_interval=250),
    "full": dict(n_layer=6, n_embd=256, n_head=8, block_size=256, batch_size=64, steps=5000, lr=6e-4, eval_interval=250),
}
