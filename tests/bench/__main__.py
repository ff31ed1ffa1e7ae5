from tests.bench.runner import main

raise SystemExit(main())
