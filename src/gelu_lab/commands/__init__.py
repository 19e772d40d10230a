"""One module per `gelu-lab` subcommand; each defines register(subparsers)."""
