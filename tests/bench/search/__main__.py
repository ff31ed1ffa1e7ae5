from tests.bench.search.run import main

main()
