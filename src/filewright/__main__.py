"""`python -m filewright`: the `filewright` command."""

from filewright.surfaces.cli.main import main

if __name__ == "__main__":
    main()
