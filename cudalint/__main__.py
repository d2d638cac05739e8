"""`python -m cudalint`: the same as the `cudalint` command."""

from cudalint.cli import main

if __name__ == "__main__":
    main()
