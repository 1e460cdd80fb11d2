"""The nodes' claim statement (service/src/store_pg.c, PG_CLAIM_SQL with --limit) as a pgbench script,
for the tests and figures that run it from many clients at once: each transaction takes the claim
lock (pg_advisory_xact_lock 727110030), then claims the next queued job as node 'bench:CLIENT'
under the limits TAGS (a PostgreSQL array literal) and MAXES, as svcPg_Claim does. Keep it equal to
the C statement (RETURNING only the id)."""

LOCK = "BEGIN;\nSELECT pg_advisory_xact_lock(727110030);\n"
CLAIM = """WITH lim AS (SELECT COALESCE(array_agg(l.tag), '{}') AS full_tags
  FROM unnest('%(tags)s'::text[], '%(maxes)s'::int[]) AS l(tag, n) WHERE (SELECT count(*)
  FROM jobs x WHERE x.status = 'running' AND x.tags IS NOT NULL AND x.tags::jsonb ? l.tag) >= l.n)
UPDATE jobs SET status = 'running', node = 'bench:' || :client_id, attempt = attempt + 1,
  lease_until = extract(epoch FROM clock_timestamp()) + 10, ctl = NULL, ctl_code = NULL,
  ctl_message = NULL, iterations = 0, nodes = 0, solutions = 0, best_quality = NULL,
  elapsed = 0 WHERE id = (SELECT q.id FROM (SELECT id FROM jobs WHERE status = 'queued'
  AND (sync OR true) AND parallel <= 1 AND run_at <= extract(epoch FROM clock_timestamp())
  AND NOT (COALESCE(tags, '[]')::jsonb ?| (SELECT full_tags FROM lim))
  ORDER BY sync DESC, priority DESC, id LIMIT 64) c
  JOIN jobs q ON q.id = c.id LEFT JOIN (SELECT client, count(*) AS n FROM jobs
  WHERE status = 'running' AND client <> '' GROUP BY client) r ON r.client = q.client
  WHERE q.status = 'queued'
  ORDER BY q.sync DESC, q.priority DESC, COALESCE(r.n, 0), q.id LIMIT 1 FOR UPDATE OF q SKIP LOCKED)
  AND status = 'queued' RETURNING id;
"""
COMMIT = "COMMIT;\n"


def script(tags="{}", maxes="{}", finish=None):
    """The pgbench script: the locked claim, then finish (SQL run in the same transaction) if given."""
    return LOCK + CLAIM % {"tags": tags, "maxes": maxes} + (finish or "") + COMMIT
