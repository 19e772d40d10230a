"""Measurements behind the app's Implementation, Misconceptions and Interview pages.

One module per idea, each pure data in, data out (no Dash, no display text: the pages' views
say the numbers; tests/test_no_display_strings.py holds the line):

    errors    error curves of one activation against another, located maxima
    fits      the constants of the tanh and sigmoid forms fitted (minimax, L2)
    accuracy  ULP error of any implementation against the correctly rounded reference
    bench     throughput of every form and backend against the memory roofline
    claims    statements people make about GELU, each one record: its evidence computed at
              run time, its words' key, its figure (claim_figures: what it draws, computed)
"""
