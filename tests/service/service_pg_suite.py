"""Runs one of the single-machine service tests (service_*.py) with every server on a PostgreSQL
store (a throwaway cluster, pg_cluster.py; TPLAN_TEST_PG in tplan_service.py): the same API, the
same answers, whichever store. usage: service_pg_suite.py TPLAN WORKDIR TEST.py
With TEST --store, runs the program TPLAN (test_store) with TPLAN_TEST_STORE set to a fresh database."""
import os
import subprocess
import sys

from pg_cluster import Postgres

TPLAN, WORK, TEST = sys.argv[1], sys.argv[2], sys.argv[3]
pg = Postgres()
try:
    env = dict(os.environ, TPLAN_TEST_PG="%s %d" % (pg.root, pg.port))
    here = os.path.dirname(os.path.abspath(__file__))
    if TEST == "--store":
        env["TPLAN_TEST_STORE"] = pg.create_db("store")
        code = subprocess.run([TPLAN], env=env).returncode
    else:
        code = subprocess.run([sys.executable, os.path.join(here, TEST), TPLAN, WORK], env=env).returncode
finally:
    pg.destroy()
sys.exit(code)
