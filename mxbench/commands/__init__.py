"""The command fronts, one module per command of `python -m mxbench`: each adds its parser
(setup_arguments) and its cmd_* functions, which read the arguments, call the layers below
(asvrun, reports, inside, core), print, and return an exit code named in core/errors.py."""
