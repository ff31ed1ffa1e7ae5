"""The extractor child: `python -m search.pipeline.sandbox MEMORY_MB CHANNEL_FD`, as
process.Sandbox starts it. Everything it does is child.main's."""

import sys

from search.pipeline.sandbox.child import main

if __name__ == "__main__":
    sys.exit(main(sys.argv))
