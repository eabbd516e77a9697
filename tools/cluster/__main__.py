import sys

from tools.cluster.cluster import main

sys.exit(main())
