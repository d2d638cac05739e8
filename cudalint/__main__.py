"""`python -m cudalint`, and the `cudalint` command: `--version` is answered here, without loading the
command line's framework (typer) or anything else; every other command goes to `cudalint.cli`."""

import gc
import sys


def main() -> None:
    if sys.argv[1:] in (["--version"], ["-V"]):
        from cudalint.version import version_line

        sys.stdout.write(version_line())
        return
    # the imports make a few hundred thousand objects and no garbage: collecting while they run costs a
    # tenth of a small file's check; the command's callback (`cli._main`) turns the collector on again
    gc.disable()
    from cudalint.cli import main as run

    try:
        run()
    finally:
        # the process ends: the collector's passes at shutdown would go through every object still alive (the
        # rules, the command's data), a fifth of a one-file check's CPU time, to find no garbage worth it
        gc.freeze()


if __name__ == "__main__":
    main()
