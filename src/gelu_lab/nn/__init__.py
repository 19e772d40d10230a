"""Torch side of GELU Lab: the small Transformer, its data, training and runs.

    model.GPT, model.GPTConfig        a char-level decoder-only Transformer, FFN activation as a parameter
    data.CharData                     a text as token ids, deterministic batches
    train.train(...)                  one run: metrics to the runs store, checkpoints, resume, DDP
    runs                              reading, exporting and comparing stored runs

Importing :mod:`gelu_lab.nn` needs torch (``pip install 'gelu-lab[nn]'``).
"""
