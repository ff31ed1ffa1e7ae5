from tests.bench.structure.formats import main

main()
