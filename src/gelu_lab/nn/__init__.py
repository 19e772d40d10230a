"""Torch side of GELU Lab: the small Transformer, its data, training and runs.

    model.GPT, model.GPTConfig        a char-level decoder-only Transformer, FFN activation as a parameter
    data.CharData                     a text as token ids, deterministic batches
    train.train(...)                  one run: metrics to the runs store, checkpoints, resume, DDP
    runs                              exporting stored runs, their series and bands for the figures
                                      (their comparison: gelu_lab.stats.runsets, numbers only)

Importing :mod:`gelu_lab.nn` needs torch (``pip install 'gelu-lab[nn]'``).
"""
