"""python -m compact.offline serve: the offline model over loopback HTTP (``server.main``)."""

from .server import main

if __name__ == "__main__":
    main()
