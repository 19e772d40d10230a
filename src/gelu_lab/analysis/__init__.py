"""Measurements behind the app's Implementation, Misconceptions and Interview pages.

One module per idea, each pure data in, data out (no Dash, no printing):

    errors    error curves of one activation against another, located maxima
    fits      the constants of the tanh and sigmoid forms fitted (minimax, L2)
    accuracy  ULP error of any implementation against the correctly rounded reference
    bench     throughput of every form and backend against the memory roofline
    claims    statements people make about GELU, with evidence computed at run time
"""
