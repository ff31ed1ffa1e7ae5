from tests.bench.structure.run import main

main()
