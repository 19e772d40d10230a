"""One module per page: ``PARAMS`` (URL state), ``layout(state, lang)``, callbacks. See gelu_lab.app."""
